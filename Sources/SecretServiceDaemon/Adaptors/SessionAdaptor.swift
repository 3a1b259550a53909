// org.freedesktop.Secret.Session
// SPDX-License-Identifier: Apache-2.0
// A session object: closing it.

import DBusWire
import SecretServiceProtocol

/// Serves `org.freedesktop.Secret.Session`; the router only resolves sessions the caller owns.
struct SessionAdaptor {
    let context: DaemonContext

    static let interface = ServedInterface(
        SecretServiceNames.sessionInterface, adaptor: SessionAdaptor.init,
        methods: [
            AdaptorMethod("Close") { adaptor, call in
                guard case .session(let session) = call.node else { throw SecretServiceError.unknownMethod("not a session") }
                guard await adaptor.context.clients.closeSession(session.id, ownedBy: call.caller) else {
                    throw SecretServiceError.noSuchObject("no such session")
                }
                return HandlerResult()
            },
        ])
}
