// io.coffer.Daemon
// SPDX-License-Identifier: Apache-2.0
// Coffer's own calls: the last prompt that could not be shown, and registering a prompt agent.

import DBusWire
import Logging
import SecretServiceProtocol

/// Serves `io.coffer.Daemon` on `/org/freedesktop/secrets`.
struct CofferAdaptor {
    let context: DaemonContext

    /// `io.coffer.Daemon`: what cofferd can tell about itself that the Secret Service has no member for (used by
    /// `coffer status`), and the prompt agents of `coffer prompt-agent`. It lives beside
    /// `org.freedesktop.Secret.Service` on `/org/freedesktop/secrets`; `dbus/io.coffer.Daemon.xml` must agree with it
    /// (a test compares them).
    static let interface = ServedInterface(
        SecretServiceNames.cofferInterface, adaptor: CofferAdaptor.init,
        methods: [
            AdaptorMethod("LastFailedPrompt", out: [.init("prompt", SecretInterfaces.propertyMap)]) { adaptor, _ in
                // An empty map when every prompt so far could be shown.
                let failure = await adaptor.context.clients.lastFailedPrompt
                return HandlerResult([failure?.dictionary ?? .dictionary(key: .string, value: .variant, [])])
            },
            AdaptorMethod("RegisterPromptAgent",
                          in: [.init("agent", .objectPath), .init("session", .objectPath)]) { adaptor, call in
                let context = adaptor.context
                try await context.clients.registerPromptAgent(owner: call.caller, path: call.args.objectPath(0),
                                                              sessionPath: call.args.objectPath(1))
                context.logger.info("a prompt agent registered", metadata: ["dbus.sender": "\(call.caller.rawValue)"])
                return context.registered([], for: call.caller)
            },
        ])
}
