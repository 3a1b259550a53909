// SPDX-License-Identifier: Apache-2.0
// What the takeover tests share: stand-in system directories, the scratch environment, and reading collections.

import DBusWire
import Foundation
import SecretCrypto
import SecretServiceClient
import SecretServiceTestSupport
import Testing

extension TakeoverTests {
    // MARK: - Fixtures

    /// System directories standing in for /etc/xdg, /usr/share and /etc (`--system-root`), holding gnome-keyring's
    /// files as Debian installs them, so the test depends neither on the host's nor on gnome-keyring's packaging.
    static func systemFixtures(in directory: URL) throws -> URL {
        let root = directory.appendingPathComponent("system", isDirectory: true)
        let files = [
            "xdg/autostart/gnome-keyring-secrets.desktop":
                "[Desktop Entry]\nType=Application\nName=Secret Storage Service\n"
                + "Exec=/usr/bin/gnome-keyring-daemon --start --components=secrets\n",
            "share/dbus-1/services/org.freedesktop.secrets.service":
                "[D-BUS Service]\nName=org.freedesktop.secrets\n"
                + "Exec=/usr/bin/gnome-keyring-daemon --start --foreground --components=secrets\n",
            "share/dbus-1/services/org.gnome.keyring.service":
                "[D-BUS Service]\nName=org.gnome.keyring\n"
                + "Exec=/usr/bin/gnome-keyring-daemon --start --foreground --components=secrets\n",
            "share/systemd/user/gnome-keyring-daemon.socket": "[Socket]\nListenStream=%t/keyring/control\n",
            "share/systemd/user/gnome-keyring-daemon.service": "[Service]\nExecStart=/usr/bin/gnome-keyring-daemon\n",
            // Enabled, as Debian's package enables it for every user.
            "etc/systemd/user/sockets.target.wants/gnome-keyring-daemon.socket": "[Socket]\n",
            "etc/pam.d/login": "auth optional pam_gnome_keyring.so\n# session optional pam_gnome_keyring.so\n",
        ]
        for (path, content) in files {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(),
                                                    withIntermediateDirectories: true)
            try content.write(to: url, atomically: true, encoding: .utf8)
        }
        return root
    }

    /// gnome-keyring's HOME and XDG directories for coffer, and the stand-in system directories.
    static func environment(home: URL, system: URL) throws -> [String: String] {
        // The cofferd that takeover starts serves the imported items to the test's own client: another
        // application, which access control would ask about.
        try DaemonHarness.turnAccessControlOff(configHome: home.appendingPathComponent(".config"))
        return [
            "HOME": home.path,
            "XDG_DATA_HOME": home.appendingPathComponent(".local/share").path,
            "XDG_CONFIG_HOME": home.appendingPathComponent(".config").path,
            "XDG_STATE_HOME": home.appendingPathComponent(".local/state").path,
            "XDG_CONFIG_DIRS": system.appendingPathComponent("xdg").path,
            "XDG_DATA_DIRS": system.appendingPathComponent("share").path,
        ]
    }

    static func overrides(in home: URL) -> (autostart: String, activation: String, gnomeActivation: String,
                                            masks: [String]) {
        let config = home.appendingPathComponent(".config").path
        let services = home.appendingPathComponent(".local/share/dbus-1/services").path
        return (config + "/autostart/gnome-keyring-secrets.desktop",
                services + "/org.freedesktop.secrets.service", services + "/org.gnome.keyring.service",
                ["gnome-keyring-daemon.socket", "gnome-keyring-daemon.service"].map { config + "/systemd/user/" + $0 })
    }

    // MARK: - Reading through a client

    static func withService<T: Sendable>(_ bus: TestBus, _ body: (SecretService) async throws -> T) async throws -> T {
        let service = try await SecretService.connect(address: bus.address)
        do {
            let result = try await body(service)
            await service.close()
            return result
        } catch {
            await service.close()
            throw error
        }
    }

    static func collection(labelled label: String, in service: SecretService) async throws -> ObjectPath {
        for path in try await service.collections() where try await service.collectionProperties(path).label == label {
            return path
        }
        throw DaemonHarness.StartError("no collection labelled \(label)")
    }

    static func snapshot(_ collection: ObjectPath, _ service: SecretService) async throws -> Set<Snapshot> {
        let items = try await service.collectionProperties(collection).items
        let secrets = try await service.secrets(of: items)
        var result: Set<Snapshot> = []
        for item in items {
            let properties = try await service.itemProperties(item)
            let secret = try #require(secrets[item]).value.withUnsafeBytes { Array($0) }
            // gnome-keyring serves its type-0 items (secret-tool's) with xdg:schema=org.freedesktop.Secret.Generic
            // once it has re-read its file, which it does at its own pace; the file records no such attribute.
            let attributes = properties.attributes.filter { $0 != ("xdg:schema", "org.freedesktop.Secret.Generic") }
            result.insert(Snapshot(label: properties.label, attributes: attributes, secret: secret))
        }
        return result
    }

    static func executableName(of pid: UInt32) -> String? {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe"))
            .map { URL(fileURLWithPath: $0).lastPathComponent }
    }
}
