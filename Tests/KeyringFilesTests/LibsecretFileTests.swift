// SPDX-License-Identifier: Apache-2.0
// The libsecret file-keyring parser against files libsecret's own file backend wrote (secret-tool, SECRET_BACKEND=file).

import Foundation
import KeyringFiles
import SecretCrypto
import SecretServiceTestSupport
import Testing

@Suite("libsecret file keyrings")
struct LibsecretFileTests {
    static let password = "libsecret file password"

    /// Stores the samples with secret-tool through libsecret's file backend (no daemon involved): libsecret 0.20.5
    /// writes `SECRET_FILE_TEST_PATH` with `SECRET_FILE_TEST_PASSWORD` when `SECRET_BACKEND=file`.
    static func writtenByLibsecret() async throws -> [UInt8] {
        try await TestBus.withPrivateBus { bus in
            let path = bus.directory.appendingPathComponent("file.keyring")
            let environment = [
                "SECRET_BACKEND": "file", "SECRET_FILE_TEST_PATH": path.path, "SECRET_FILE_TEST_PASSWORD": password,
                "DBUS_SESSION_BUS_ADDRESS": "",
            ]
            let clients = ClientEnvironment(bus: bus)
            for sample in KeyringSamples.items {
                let stored = try await clients.run("/usr/bin/secret-tool", sample.secretToolArguments,
                                                   input: Data(sample.secret), extraEnvironment: environment)
                #expect(stored.status == 0, "\(stored.stderr)")
            }
            // libsecret reads back what it wrote, so the file is the real thing.
            let lookup = try await clients.run("/usr/bin/secret-tool", ["lookup", "service", "myapp"],
                                               extraEnvironment: environment)
            #expect(lookup.text == "hunter2")
            return try [UInt8](Data(contentsOf: path))
        }
    }

    @Test("a file written by libsecret parses to the stored items; wrong password, truncation and damage are errors")
    func realFile() async throws {
        let file = try await WrittenKeyrings.libsecret.value
        #expect(KeyringFile.detectFormat(file) == .libsecretFile)
        let keyring = try KeyringFile.parse(file, password: secretBytes(Self.password))
        #expect(keyring.format == .libsecretFile)
        KeyringSamples.expectMatches(keyring, KeyringSamples.items)
        #expect(keyring.items.allSatisfy { ($0.created ?? 0) > 1_600_000_000 && $0.modified != nil })

        #expect(thrownError { try KeyringFile.parse(file, password: secretBytes("wrong")) } as? KeyringFileError
                == .wrongPassword)
        #expect(thrownError { try KeyringFile.parse(file, password: nil) } as? KeyringFileError == .passwordRequired)

        // Any cut is an error. The tight iteration limit keeps a prefix that still decodes from costing PBKDF2 time.
        let cheap = ParseLimits(maximumItems: 100, maximumKDFIterations: 10)
        let truncations = await unexpectedOutcomes(file.count) { length in
            let error = thrownError { try LibsecretFileFormat.parse(Array(file[..<length]), password: secretBytes("x"), limits: cheap) }
            return error is KeyringFileError ? nil : "prefix \(length): \(String(describing: error))"
        }
        #expect(truncations.isEmpty, "\(truncations.prefix(5))")
        // A changed byte inside the last item's blob fails its MAC: not the first item, so it is reported as damage.
        var damaged = file
        damaged[file.count - 120] ^= 0x01
        let error = thrownError { try KeyringFile.parse(damaged, password: secretBytes(Self.password)) }
        #expect(error is KeyringFileError, "\(String(describing: error))")
    }
}

@Suite("libsecret file keyrings, hand-built")
struct LibsecretFileHandBuiltTests {
    @Test("oo7's content-type attribute becomes the content type; an empty keyring has no items")
    func contentTypeAndEmpty() throws {
        var writer = LibsecretFileWriter()
        writer.items = [
            .init(label: "oo7 item", attributes: ["xdg:content-type": "application/octet-stream", "app": "x"],
                  secret: [0, 1, 2]),
            .init(label: "libsecret item", attributes: [:], secret: Array("s".utf8)),
        ]
        let keyring = try KeyringFile.parse(try writer.write(password: "pw"), password: secretBytes("pw"))
        #expect(keyring.format == .libsecretFile && keyring.modified == 1_700_000_002)
        #expect(keyring.items.map(\.label) == ["oo7 item", "libsecret item"])
        #expect(keyring.items[0].contentType == "application/octet-stream")
        #expect(keyring.items[0].secret?.copyBytes() == [0, 1, 2])
        #expect(keyring.items[0].created == 1_700_000_000 && keyring.items[0].modified == 1_700_000_001)
        #expect(keyring.items[1].contentType == nil && keyring.items[1].attributes == [:])

        writer.items = []
        #expect(try KeyringFile.parse(try writer.write(password: "pw"), password: secretBytes("pw")).items.isEmpty)
    }

    @Test("an item body that passes its MAC but is not a valid item is reported as corruption")
    func damagedBody() throws {
        var writer = LibsecretFileWriter()
        writer.items = [.init(label: "a", attributes: ["k": "v"], secret: [1])]
        writer.damage = { $0[$0.count - 1] = 0xEE }  // the tuple's last framing offset now points past the end
        let error = thrownError { try KeyringFile.parse(try writer.write(password: "pw"), password: secretBytes("pw")) }
        guard case .malformed? = error as? KeyringFileError else {
            Issue.record("expected a malformed-data error, got \(String(describing: error))")
            return
        }
    }
}
