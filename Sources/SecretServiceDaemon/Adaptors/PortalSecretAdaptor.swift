// org.freedesktop.impl.portal.Secret
// SPDX-License-Identifier: Apache-2.0
// The Secret portal's backend: a sandboxed application's own secret, for xdg-desktop-portal to hand on.

import DBusWire
import Logging
import SecretCrypto
import SecretServiceProtocol

/// Serves `org.freedesktop.impl.portal.Secret` on `/org/freedesktop/portal/desktop`.
struct PortalSecretAdaptor {
    let context: DaemonContext

    /// The interface version xdg-desktop-portal's own `org.freedesktop.portal.Secret` reports (1).
    static let properties: [String: DBusValue] = ["version": .uint32(1)]

    /// The `response` codes of every portal request (xdg-desktop-portal's `org.freedesktop.portal.Request`).
    enum Response: UInt32 {
        case success = 0
        case cancelled = 1
        case other = 2
    }

    /// `org.freedesktop.impl.portal.Secret` (xdg-desktop-portal's `data/org.freedesktop.impl.portal.Secret.xml`):
    /// the per-application secret a sandboxed application asks `org.freedesktop.portal.Secret` for. It lives on
    /// `/org/freedesktop/portal/desktop`; `dbus/org.freedesktop.impl.portal.Secret.xml` must agree with it (a test
    /// compares them).
    static let interface = ServedInterface(
        SecretServiceNames.portalSecretInterface, adaptor: PortalSecretAdaptor.init,
        methods: [
            AdaptorMethod("RetrieveSecret", in: [
                .init("handle", .objectPath), .init("app_id", .string), .init("fd", .unixFD),
                .init("options", SecretInterfaces.propertyMap),
            ], out: [.init("response", .uint32), .init("results", SecretInterfaces.propertyMap)]) { adaptor, call in
                try await adaptor.retrieveSecret(call)
            },
        ],
        properties: [PropertyDescription("version", .uint32)])

    /// `RetrieveSecret(o handle, s app_id, h fd, a{sv} options) → (u response, a{sv} results)`.
    private func retrieveSecret(_ call: MethodCall) async throws(SecretServiceError) -> HandlerResult {
        // The method trusts the app_id it is given, so only the frontend, which reads it from the sandbox itself, may
        // call it; anyone else could name any application.
        guard await PortalFrontend(sender: context.sender).isFrontend(call.caller) else {
            context.logger.notice("a caller that is not xdg-desktop-portal asked for a portal secret",
                                  metadata: ["dbus.sender": "\(call.caller.rawValue)"])
            throw .accessDenied("only xdg-desktop-portal may call \(SecretServiceNames.portalSecretInterface)")
        }
        let appID = try call.args.string(1)
        guard case .unixFD(let descriptor) = call.arguments[2] else {
            throw .invalidArgs("RetrieveSecret expects a file descriptor")
        }
        let response = await retrieve(appID: appID, into: descriptor.rawValue, caller: call.caller)
        // The descriptor is closed with the rest of the call's descriptors once the call has been handled.
        return HandlerResult([.uint32(response.rawValue), .dictionary(key: .string, value: .variant, [])])
    }

    private func retrieve(appID: String, into descriptor: Int32, caller: BusName) async -> Response {
        // The frontend passes "" for an application it cannot place in a sandbox: every unsandboxed program would
        // share that one secret, so there is none to give.
        guard !appID.isEmpty else {
            context.logger.notice("the Secret portal was asked for an unsandboxed application; refused")
            return .other
        }
        let issuer = PortalSecretIssuer(context: context)
        switch await issuer.secret(for: appID, caller: caller) {
        case .success(let secret):
            defer { secret.wipe() }
            guard DescriptorWriter.write(secret, to: descriptor) else {
                context.logger.notice("the portal secret could not be written to the application's descriptor",
                                      metadata: ["portal.app": "\(appID)"])
                return .other
            }
            context.logger.info("gave an application its portal secret", metadata: ["portal.app": "\(appID)"])
            return .success
        case .failure(let failure):
            context.logger.notice("no portal secret for an application",
                                  metadata: ["portal.app": "\(appID)", "reason": "\(failure)"])
            return failure == .unlockDismissed ? .cancelled : .other
        }
    }
}
