// org.freedesktop.Secret.Session
// SPDX-License-Identifier: Apache-2.0
// A session object: closing it.

import DBusWire
import SecretServiceProtocol

/// Serves `org.freedesktop.Secret.Session`; the router only resolves sessions the caller owns.
struct SessionAdaptor {
    let context: DaemonContext

    func call(_ call: MethodCall) async throws(SecretServiceError) -> HandlerResult {
        guard case .session(let session) = call.node, call.member == "Close" else {
            throw .unknownMethod("no method '\(call.member)' in the Session interface")
        }
        guard await context.clients.closeSession(session.id, ownedBy: call.caller) else {
            throw .noSuchObject("no such session")
        }
        return HandlerResult()
    }
}
