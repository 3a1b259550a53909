// SPDX-License-Identifier: Apache-2.0
// Sealing a key slot's key as a systemd credential with systemd-creds, and the unit drop-in that hands it to cofferd.

import Foundation
import SecretCrypto
import SecretServiceProtocol

/// The systemd side of a systemd-credential key slot. The key goes to `systemd-creds encrypt` through a pipe, from
/// secure memory; it is never in a plain file, on a command line or in the environment.
enum SystemdCredential {
    /// The credential name cofferd looks for in `$CREDENTIALS_DIRECTORY`.
    static func name(of collection: String) -> String { SecretServiceNames.credentialName(of: collection) }

    /// Where the encrypted credential goes by default: beside the user's other Coffer settings.
    static func defaultPath(for collection: String) -> String? {
        configHome.map { "\($0)/coffer/credentials/\(name(of: collection)).cred" }
    }

    /// The user's systemd drop-in for cofferd.service that loads the credential.
    static func dropInPath(for collection: String) -> String? {
        configHome.map { "\($0)/systemd/user/cofferd.service.d/\(name(of: collection)).conf" }
    }

    /// The unit line that loads the credential into cofferd's `$CREDENTIALS_DIRECTORY`.
    static func unitLine(collection: String, path: String) -> String {
        "LoadCredentialEncrypted=\(name(of: collection)):\(path)"
    }

    private static var configHome: String? {
        let environment = ProcessInfo.processInfo.environment
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config }
        return environment["HOME"].map { $0 + "/.config" }
    }

    /// Runs `systemd-creds encrypt --name=NAME [options] - PATH` with `key` on its stdin.
    /// - Parameters:
    ///   - options: extra `systemd-creds` options (`--with-key=…`, `--user`).
    /// - Throws: ``CofferError`` with systemd-creds' own last line when it fails or cannot be run.
    static func encrypt(_ key: SecretBytes, name: String, to path: String, options: [String]) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["systemd-creds", "encrypt", "--name=\(name)"] + options + ["-", path]
        let input = Pipe()
        let errors = Pipe()
        process.standardInput = input
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw CofferError(.unsupported, "cannot run systemd-creds: \(error.localizedDescription)")
        }
        // Straight from secure memory into the pipe; a 32-byte key fits any pipe buffer, so this cannot block.
        let descriptor = input.fileHandleForWriting.fileDescriptor
        key.withUnsafeBytes { _ = write(descriptor, $0.baseAddress, $0.count) }
        try input.fileHandleForWriting.close()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            unlink(path)
            let lines = String(decoding: message, as: UTF8.self).split(whereSeparator: \.isNewline)
            let reason = lines.last.map(String.init) ?? "exit status \(process.terminationStatus)"
            throw CofferError(.failure, "systemd-creds could not encrypt the key: \(reason)")
        }
    }

    /// Writes the drop-in that loads the credential; `systemctl --user daemon-reload` makes it count.
    static func installDropIn(at dropIn: String, collection: String, credential: String) throws {
        let directory = (dropIn as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let text = "# Written by `coffer key-slots add \(collection) systemd-credential`.\n[Service]\n"
            + unitLine(collection: collection, path: credential) + "\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: dropIn), options: .atomic)
    }
}
