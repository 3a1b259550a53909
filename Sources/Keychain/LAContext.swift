// SPDX-License-Identifier: Apache-2.0
// A stand-in for LocalAuthentication's LAContext, for `kSecUseAuthenticationContext` on Linux.

#if !canImport(LocalAuthentication)
import Synchronization

/// The part of Apple's `LAContext` that SecItem code uses: passed as `kSecUseAuthenticationContext`, a context
/// whose ``interactionNotAllowed`` is true forbids prompts, so a locked collection fails with
/// `errSecInteractionNotAllowed` instead of asking for its password (as a context does on Apple platforms).
///
/// There is no biometry or device passcode here, so nothing else of `LAContext` is offered; code that evaluates
/// policies must keep that part under `#if canImport(LocalAuthentication)`. The value is read when the SecItem
/// function is called.
public final class LAContext: Sendable {
    private let forbidsInteraction = Mutex(false)

    public init() {}

    /// Whether operations using this context must fail rather than prompt.
    public var interactionNotAllowed: Bool {
        get { forbidsInteraction.withLock { $0 } }
        set { forbidsInteraction.withLock { $0 = newValue } }
    }
}
#endif
