// SPDX-License-Identifier: Apache-2.0
// Why a SecItem call could not ask the user, in the provider's words.

import Foundation
import Security
import SecretServiceClient

extension KeychainStatusError {
    /// ``check(_:_:)`` for a SecItem call that began at `start`.
    ///
    /// `errSecInteractionNotAllowed` from a call that allowed prompts means the provider could not show one (no
    /// display, no terminal, no pinentry). Apple's text for it says nothing of why or what to do, and the library
    /// has only the status to give; cofferd keeps the reason it gave (`io.coffer.Daemon.LastFailedPrompt`), which
    /// names the way out, so it is added when it is at least as recent as the call.
    static func check(_ status: OSStatus, _ operation: String, since start: Date) async throws {
        guard status == errSecInteractionNotAllowed else { return try check(status, operation) }
        let reason = try? await ProviderConnection.with { service -> String? in
            guard let failure = try await service.lastFailedPrompt(),
                  Double(failure.time) >= start.timeIntervalSince1970.rounded(.down) else { return nil }
            return failure.reason
        }
        throw KeychainStatusError(status: status, operation: operation, detail: reason)
    }
}
