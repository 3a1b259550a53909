// SPDX-License-Identifier: Apache-2.0
// LocalAuthentication's LAContext on Linux: enough for `kSecUseAuthenticationContext` and for code that asks whether
// biometry is available (it never is here), so iOS sources that `import LocalAuthentication` build unchanged.

#if !canImport(Darwin)  // Apple platforms have the real framework
public import Foundation
import Synchronization

/// The policies Apple code evaluates (raw values as Apple's).
public enum LAPolicy: Int, Sendable {
    case deviceOwnerAuthenticationWithBiometrics = 1
    case deviceOwnerAuthentication = 2
}

/// The error domain of ``LAError``.
public let LAErrorDomain = "com.apple.LocalAuthentication"

/// Why a policy cannot be evaluated (codes as Apple's).
public struct LAError: Error, Sendable, Equatable {
    public enum Code: Int, Sendable {
        case authenticationFailed = -1
        case userCancel = -2
        case userFallback = -3
        case systemCancel = -4
        case passcodeNotSet = -5
        case biometryNotAvailable = -6
        case biometryNotEnrolled = -7
        case notInteractive = -1004
    }

    public let code: Code

    public init(_ code: Code) { self.code = code }

    public static let biometryNotAvailable = Code.biometryNotAvailable
    public static let passcodeNotSet = Code.passcodeNotSet
    public static let userCancel = Code.userCancel
    public static let notInteractive = Code.notInteractive
}

/// The part of Apple's `LAContext` that keychain code uses.
///
/// Passed as `kSecUseAuthenticationContext`, a context whose ``interactionNotAllowed`` is true forbids prompts, so
/// a locked collection fails with `errSecInteractionNotAllowed` instead of asking for its password, as on Apple
/// platforms. There is no biometry or device passcode on a Linux session, so every policy is unavailable:
/// ``canEvaluatePolicy(_:error:)`` answers false with `biometryNotAvailable` (or `passcodeNotSet`) and
/// ``evaluatePolicy(_:localizedReason:reply:)`` fails the same way, which sends apps down their fallback path
/// rather than pretending a user was authenticated.
///
/// As on Apple platforms it is an `NSObject`: equal only to itself, hashable by identity, so apps can keep
/// contexts in sets or in `[String: AnyHashable]` option dictionaries.
public final class LAContext: NSObject, @unchecked Sendable {
    // @unchecked: NSObject is not Sendable; this subclass adds only Mutex-guarded state and never mutates the
    // NSObject part.
    private let forbidsInteraction = Mutex(false)
    private let reason = Mutex("")

    override public init() {}

    /// Whether operations using this context must fail rather than prompt.
    public var interactionNotAllowed: Bool {
        get { forbidsInteraction.withLock { $0 } }
        set { forbidsInteraction.withLock { $0 = newValue } }
    }

    /// Kept for source compatibility; no dialogue here shows it.
    public var localizedReason: String {
        get { reason.withLock { $0 } }
        set { reason.withLock { $0 = newValue } }
    }

    /// Always false: no policy can be evaluated on Linux. `error` receives the reason as an `NSError` in
    /// ``LAErrorDomain``.
    public func canEvaluatePolicy(_ policy: LAPolicy,
                                  error: UnsafeMutablePointer<NSError?>?) -> Bool {
        error?.pointee = NSError(domain: LAErrorDomain, code: Self.unavailability(of: policy).rawValue)
        return false
    }

    /// Replies `false` with the reason the policy is unavailable; never reports a successful authentication.
    public func evaluatePolicy(_ policy: LAPolicy, localizedReason: String,
                               reply: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        reply(false, LAError(Self.unavailability(of: policy)))
    }

    /// The async form: throws the reason the policy is unavailable.
    public func evaluatePolicy(_ policy: LAPolicy, localizedReason: String) async throws -> Bool {
        throw LAError(Self.unavailability(of: policy))
    }

    /// Nothing to cancel: evaluations end at once.
    public func invalidate() {}

    private static func unavailability(of policy: LAPolicy) -> LAError.Code {
        policy == .deviceOwnerAuthenticationWithBiometrics ? .biometryNotAvailable : .passcodeNotSet
    }
}
#endif
