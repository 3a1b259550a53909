// SPDX-License-Identifier: Apache-2.0
// The Secret portal's backend as the router serves it: its object, its version, and its refusal of strangers.

import DBusWire
import Glibc
import SecretServiceDaemon
import SecretServiceProtocol
import SecretStore
import Testing

@Suite("Secret portal backend")
struct PortalSecretInterfaceTests {
    let portal = SecretServiceNames.portalPath
    let interface = SecretServiceNames.portalSecretInterface
    let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"

    @Test("a caller that cannot be shown to be xdg-desktop-portal is refused, and nothing is written or stored")
    func strangerIsRefused() async throws {
        let h = try await RouterHarness()
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        // The router harness has no bus to ask who the caller is, which must count as "not the frontend".
        let reply = await h.call(portal, interface, "RetrieveSecret", [
            .objectPath("/org/freedesktop/portal/desktop/request/1_10/t"), .string("org.example.App"),
            .unixFD(UnixFileDescriptor(rawValue: ends[1])), .dictionary(key: .string, value: .variant, []),
        ])
        close(ends[1])
        #expect(reply.errorName == .accessDenied)
        var byte: UInt8 = 0
        #expect(read(ends[0], &byte, 1) == 0, "something was written to the descriptor")
        #expect(await h.store.search(["app_id": "org.example.App"]).isEmpty)
    }

    @Test("the interface reports version 1, as xdg-desktop-portal's own Secret portal does")
    func version() async throws {
        let h = try await RouterHarness()
        let body = try await h.ok(portal, SecretServiceNames.propertiesInterface, "Get",
                                  [.string(interface.rawValue), .string("version")])
        #expect(body == [.variant(.uint32(1))])
    }

    @Test("the portal path carries only the portal interface and the standard ones")
    func onlyThePortalInterface() async throws {
        let h = try await RouterHarness()
        #expect(await h.errorName(portal, SecretServiceNames.serviceInterface, "OpenSession",
                                  [.string("plain"), .variant(.string(""))]) == unknownMethod)
        #expect(await h.errorName(service, interface, "RetrieveSecret", [
            .objectPath("/"), .string("x"), .unixFD(UnixFileDescriptor(rawValue: -1)),
            .dictionary(key: .string, value: .variant, []),
        ]) == unknownMethod)
    }
}
