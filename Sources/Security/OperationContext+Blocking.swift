// SPDX-License-Identifier: Apache-2.0
// The one bridge from the blocking SecItem functions to the async core: block the caller once, run on the loop.

import Dispatch
import Foundation
import SecretServiceClient
import Synchronization
import CofferKeychainConfiguration

extension OperationContext {
    /// Runs one operation of the async core and blocks the calling thread until it ends.
    ///
    /// The work runs as one task that prefers the shared connection's loop thread (the thread that reads and
    /// writes its socket), so a call travels from the request to the replies and back without waking another
    /// thread: the caller sleeps once and is woken once. Only the very first call of a bus starts on the connect
    /// thread (``OperationThread``) and moves to the loop as soon as the connection exists.
    ///
    /// A caller already on that loop thread would wait for work only it can run. That is refused with
    /// `errSecInternalError` and a message on standard error instead of hanging forever.
    static func performBlocking<T: Sendable>(
        _ configuration: KeychainConfiguration, interaction: AuthenticationUI,
        _ body: @escaping @Sendable (OperationContext) async throws -> T
    ) -> Result<T, KeychainFailure> {
        let client = ProviderRegistry.shared.readyClient(for: configuration.busKey)
        if let client, client.isOnLoopThread {
            reportLoopThreadCall()
            return .failure(KeychainFailure(errSecInternalError))
        }
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<T, KeychainFailure>?>(nil)
        Task(executorPreference: client?.loopExecutor ?? OperationThread.shared) {
            let result = await perform(configuration, interaction: interaction, body)
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return outcome.withLock { $0! }
    }

    /// Says why a call failed where the caller will see it: this is a programming error, not a keychain state.
    private static func reportLoopThreadCall() {
        let message = "Keychain: a SecItem function was called on the D-Bus loop thread of the library's own "
            + "connection, where it would wait for itself forever; it returns errSecInternalError. Call it from "
            + "another thread or task.\n"
        FileHandle.standardError.write(Data(message.utf8))
    }
}
