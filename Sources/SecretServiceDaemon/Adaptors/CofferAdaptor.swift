// io.coffer.Daemon
// SPDX-License-Identifier: Apache-2.0
// Coffer's own calls: the last prompt that could not be shown, and registering a prompt agent.

import DBusWire
import Logging
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
        case "RegisterPromptAgent":
            let args = Arguments(call)
            try await context.clients.registerPromptAgent(owner: call.caller, path: args.objectPath(0),
                                                          sessionPath: args.objectPath(1))
            context.logger.info("a prompt agent registered", metadata: ["dbus.sender": "\(call.caller.rawValue)"])
            return context.registered([], for: call.caller)
        default:
            throw .unknownMethod("no method '\(call.member)' in the \(SecretServiceNames.cofferInterface) interface")
        }
    }
}
