// SPDX-License-Identifier: Apache-2.0
// Every verb reports "no provider on the bus" and "no bus" with the same line and the same exit status.

import Foundation
import SecretServiceTestSupport
import Testing

@Suite("coffer without a provider or a bus")
struct NoProviderMessageTests {
    static let noProvider = "coffer: no Secret Service provider on the session bus (nothing owns "
        + "org.freedesktop.secrets and none can be activated); start cofferd, or run `coffer doctor`\n"

    /// One invocation per verb that talks to the provider, each with the arguments and stdin it needs to get as far
    /// as connecting.
    static func invocations(archive: String, keyring: String) -> [String: (arguments: [String], input: String)] {
        [
            "add-generic-password": (["-a", "a", "-s", "s"], "pw"),
            "find-generic-password": (["-s", "s"], ""),
            "delete-generic-password": (["-s", "s"], ""),
            "add-internet-password": (["-a", "a", "-s", "s"], "pw"),
            "find-internet-password": (["-s", "s"], ""),
            "delete-internet-password": (["-s", "s"], ""),
            "list-keychains": ([], ""),
            "default-keychain": ([], ""),
            "create-keychain": (["work"], "pw\n"),
            "delete-keychain": (["work"], ""),
            "lock-keychain": (["-a"], ""),
            "unlock-keychain": ([], "pw\n"),
            "set-keychain-password": ([], "old\nnew\n"),
            "dump-keychain": ([], ""),
            "store": (["--label=x", "a", "b"], "pw"),
            "lookup": (["a", "b"], ""),
            "search": (["a", "b"], ""),
            "clear": (["a", "b"], ""),
            "lock": ([], ""),
            "status": ([], ""),
            "import": ([keyring, "--collection", "x"], "pw\n"),
            "export": (["-o", archive + ".new"], "pw\n"),
            "restore": ([archive], "archive pass\n"),
            "key-slots": (["list", "login"], ""),
            "prompt-agent": ([], ""),
            "access": (["list"], ""),
        ]
    }

    /// Verbs that do not report a missing provider as a failure line: `doctor` lists it among its findings.
    static let reportingVerbs: Set<String> = ["doctor"]

    /// Verbs for which no provider is not a failure: `takeover` starts cofferd itself (TakeoverTests).
    static let startingVerbs: Set<String> = ["takeover"]

    /// Verbs that never talk to a provider: `sync` reads a folder (SyncStatusTests).
    static let providerlessVerbs: Set<String> = ["sync"]

    @Test func everyVerbSaysTheSame() async throws {
        try await TestBus.withPrivateBus { bus in
            let coffer = CofferCLI(bus: bus)
            // An archive to restore, written while a provider runs; then the provider goes.
            let harness = try await DaemonHarness.start(on: bus, options: .init(arguments: DaemonHarness.cheapKeyDerivation))
            let archive = bus.directory.appendingPathComponent("backup.coffer").path
            let export = try await coffer.run(["export", "-o", archive], input: "archive pass\n")
            _ = await harness.stop()
            #expect(export.status == 0, "\(export.stderr)")
            let keyring = bus.directory.appendingPathComponent("plain.keyring").path
            try Data("[keyring]\ndisplay-name=P\n\n[1]\ndisplay-name=kept\nsecret=abc\n".utf8)
                .write(to: URL(fileURLWithPath: keyring))

            let invocations = Self.invocations(archive: archive, keyring: keyring)
            // A verb added later must be added above (or to reportingVerbs, startingVerbs or providerlessVerbs) to be
            // held to the same line.
            let exempt = Self.reportingVerbs.union(Self.startingVerbs).union(Self.providerlessVerbs)
            #expect(Set(try await Self.verbs(coffer)) == Set(invocations.keys).union(exempt))
            for (verb, invocation) in invocations.sorted(by: { $0.key < $1.key }) {
                let run = try await coffer.run([verb] + invocation.arguments, input: invocation.input)
                #expect(run.status == 53, "\(verb): \(run.stderr)")
                #expect(run.stderr == Self.noProvider, "\(verb)")

                let noBus = try await coffer.run([verb] + invocation.arguments, input: invocation.input,
                                                 environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"])
                #expect(noBus.status == 53, "\(verb) without a bus: \(noBus.stderr)")
                #expect(noBus.stderr.hasPrefix("coffer: cannot connect to the session bus: ")
                        && noBus.stderr.hasSuffix("; check DBUS_SESSION_BUS_ADDRESS, or run `coffer doctor`\n")
                        && noBus.stderr.split(separator: "\n").count == 1, "\(verb) without a bus: \(noBus.stderr)")
            }
        }
    }

    /// The subcommands `coffer --help` lists.
    static func verbs(_ coffer: CofferCLI) async throws -> [String] {
        let help = try await coffer.run(["--help"]).text
        guard let start = help.range(of: "SUBCOMMANDS:") else { return [] }
        return help[start.lowerBound...].split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  "), let first = line.dropFirst(2).first, first.isLowercase else { return nil }
            return String(line.dropFirst(2).prefix { !$0.isWhitespace })
        }
    }
}
