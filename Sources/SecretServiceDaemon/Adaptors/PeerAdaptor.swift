// org.freedesktop.DBus.Peer
// SPDX-License-Identifier: Apache-2.0
// Ping and GetMachineId, for the calls that reach us rather than being answered inside libdbus.

#if canImport(Glibc)
import Glibc
#endif
import DBusWire
import SecretServiceProtocol

/// Serves `org.freedesktop.DBus.Peer`.
struct PeerAdaptor {
    static let interface = ServedInterface(
        SecretServiceNames.peerInterface, adaptor: { _ in PeerAdaptor() },
        methods: [
            AdaptorMethod("Ping") { _, _ in HandlerResult() },
            AdaptorMethod("GetMachineId", out: [.init("machine_uuid", .string)]) { _, _ in
                guard let id = PeerAdaptor.machineID() else { throw SecretServiceError.failed("the machine id is not available") }
                return HandlerResult([.string(id)])
            },
        ])

    /// The first line of `/etc/machine-id` (or the D-Bus copy of it).
    static func machineID() -> String? {
        for path in ["/etc/machine-id", "/var/lib/dbus/machine-id"] {
            guard let file = fopen(path, "r") else { continue }
            defer { fclose(file) }
            var buffer = [CChar](repeating: 0, count: 64)
            guard fgets(&buffer, Int32(buffer.count), file) != nil else { continue }
            let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let id = line.trimmingWhitespace()
            if id.count == 32 { return id }
        }
        return nil
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        String(self.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
