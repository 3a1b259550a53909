// SPDX-License-Identifier: Apache-2.0
// Where --unlock's login password comes from: already read, or read once the daemon is serving.

public import SecretCrypto

/// The login password of `--unlock`.
///
/// A password still to be read lets the daemon claim its name first when `login` exists: a login manager may write
/// the password some time after starting cofferd, and meanwhile calls on other collections are answered while calls
/// that need `login` wait for it. Creating `login` (first start) reads it before the name is claimed, so that a
/// client storing into `default` at once finds the collection.
public enum LoginPasswordInput: Sendable {
    /// Read already.
    case given(SecretBytes)
    /// Read by a blocking reader (standard input, say) when the daemon asks, on a thread of its own so the wait never
    /// holds a concurrency pool thread. The reader returns `nil` when none came (an empty input, which it reports
    /// itself).
    case later(@Sendable () -> SecretBytes?)

    /// The password, reading it now if it is still to be read. Cancelled before the reader returns (graceful
    /// shutdown while nobody wrote the password), it returns `nil` at once; the reader's thread wipes what comes.
    func read() async -> SecretBytes? {
        switch self {
        case .given(let password):
            return password
        case .later(let reader):
            let (stream, handoff) = AsyncStream.makeStream(of: SecretBytes?.self)
            DetachedThread.start {
                let password = reader()
                if case .terminated = handoff.yield(password) { password?.wipe() }
                handoff.finish()
            }
            for await password in stream { return password }
            return nil
        }
    }
}
