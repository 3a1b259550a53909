// io.coffer.Daemon
// SPDX-License-Identifier: Apache-2.0
// Coffer's own questions about the daemon: the last prompt that could not be shown.

import DBusWire
import SecretServiceProtocol

/// Serves `io.coffer.Daemon` on `/org/freedesktop/secrets`.
struct CofferAdaptor {
    let context: DaemonContext

    func call(_ call: MethodCall) async throws(SecretServiceError) -> HandlerResult {
        switch call.member {
        case "LastFailedPrompt":
            // An empty map when every prompt so far could be shown.
            let failure = await context.clients.lastFailedPrompt
            return HandlerResult([failure?.dictionary ?? .dictionary(key: .string, value: .variant, [])])
        default:
            throw .unknownMethod("no method '\(call.member)' in the \(SecretServiceNames.cofferInterface) interface")
        }
    }
}
