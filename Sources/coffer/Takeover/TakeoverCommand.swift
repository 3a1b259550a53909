// SPDX-License-Identifier: Apache-2.0
// `coffer takeover`: make cofferd this user's Secret Service provider in one step, importing the old provider's
// keyrings first; `--undo` reverses the configuration changes.

import ArgumentParser
import DBusTransport
import DBusWire
import Foundation
import SecretCrypto
import SecretServiceClient

struct Takeover: CofferCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make cofferd your Secret Service provider: import the old provider's keyrings, stop it, keep it "
            + "from starting again.",
        discussion: """
            Finds what else serves or would start org.freedesktop.secrets (gnome-keyring's autostart entry, D-Bus \
            activation files and systemd user units, KeePassXC's Secret Service integration, pam_gnome_keyring \
            lines), explains each and, once confirmed (or with --yes), in this order: reads every keyring of the \
            old provider (gnome-keyring's ~/.local/share/keyrings/*.keyring with the login password, and through \
            the running provider's D-Bus API what the files do not give); stops if any keyring cannot be read, \
            before anything is changed; writes per-user overrides (Hidden=true autostart entries, activation files \
            in ~/.local/share/dbus-1/services) and masks gnome-keyring's units; stops the running provider; \
            starts cofferd (systemd --user when the session has it, else as a detached process) with the login \
            password; and imports the items into cofferd (login → login, the default collection).

            The login password is read from a prompt that does not echo, or from the first line of stdin when \
            stdin is not a terminal. gnome-keyring's files are only read, never changed. PAM lines are reported \
            only: changing PAM needs root (replace pam_gnome_keyring.so with pam_coffer.so).

            Every change is recorded in $XDG_CONFIG_HOME/coffer/takeover.json; --undo reverses them (imported \
            items stay in cofferd). Running takeover again changes nothing and imports nothing twice.
            """)

    @Flag(name: .long, help: "Do it without asking for confirmation.")
    var yes = false

    @Flag(name: .long, help: "Reverse the changes a previous takeover recorded.")
    var undo = false

    @Option(name: .long, help: ArgumentHelp("The cofferd to start (default: the one next to coffer, else on PATH).",
                                            valueName: "path"))
    var cofferd: String?

    @Option(name: .long, help: .hidden)
    var systemRoot: String?

    func execute() async throws {
        var directories = UserDirectories()
        if let systemRoot { directories.systemRoot = systemRoot }
        if undo { return try Self.undoAll(directories) }
        let cofferd = try Self.locateCofferd(cofferd)
        let (probe, connection) = await ProviderProbe.run()
        guard let connection else {
            throw CofferError(.noProvider, "no session bus (\(probe.busFailure ?? "unknown")); run takeover inside "
                + "your desktop session")
        }
        do {
            try await run(directories, cofferd: cofferd, probe: probe, connection: connection)
            await connection.close()
        } catch {
            await connection.close()
            throw error
        }
    }

    private func run(_ directories: UserDirectories, cofferd: String, probe: ProviderProbe, connection: Connection)
        async throws {
        var state = try TakeoverState.load(directories.takeoverState)
        let competitors = CompetitorSurvey.run(directories, cofferd: cofferd)
        let oldProvider = probe.process.flatMap { $0.isCofferd ? nil : $0 }
        let files = KeyringHarvest.pendingFiles(directories, state: state)
        let needsStart = probe.process?.isCofferd != true
        let changes = competitors.compactMap(\.change)
        Self.explain(competitors, oldProvider: oldProvider, files: files, cofferd: cofferd, needsStart: needsStart)
        guard !changes.isEmpty || oldProvider != nil || !files.isEmpty || needsStart else {
            Console.print("nothing to do: cofferd is the provider, nothing else would start, every keyring file is "
                + "imported")
            return
        }
        if !yes { try Self.confirm() }

        let password = try SecretInput.read(prompt: "Login keyring password: ", piped: .firstLine)
        defer { password.wipe() }
        if !needsStart { try await TakeoverImport.checkLogin(password: password) }
        // Read everything first: if any keyring cannot be read, nothing has been changed yet.
        let harvest = oldProvider == nil
            ? try await KeyringHarvest.run(files: files, password: password, provider: nil)
            : try await ProviderConnection.with { old in
                try await KeyringHarvest.run(files: files, password: password, provider: old)
            }
        guard harvest.unreadable.isEmpty else {
            for keyring in harvest.unreadable { Console.error("cannot read \(keyring.source): \(keyring.reason)") }
            throw CofferError(.authenticationFailed, "\(harvest.unreadable.count) keyring(s) cannot be read; "
                + "nothing was changed")
        }

        for change in changes {
            state.changes.append(try ChangeApplier.apply(change, directories))
            try state.save(directories.takeoverState)
            Console.print("done: \(change.summary)")
        }
        if let oldProvider {
            try await ProviderSwitch.stop(oldProvider, on: connection)
            Console.print("done: stopped \(oldProvider.name) (pid \(oldProvider.pid))")
        }
        if try await connection.processID(of: "org.freedesktop.secrets").map({ ProviderProcess(pid: $0).isCofferd })
            != true {
            Console.print("done: " + (try await ProviderSwitch.start(cofferd: cofferd, password: password,
                                                                      directories: directories, on: connection)))
        }
        try await TakeoverImport.run(harvest.keyrings, password: password, state: &state, directories: directories)
        Console.print("cofferd is now your Secret Service provider; `coffer takeover --undo` reverses the changes")
    }

    /// Prints what was found and what will be done about it.
    static func explain(_ competitors: [Competitor], oldProvider: ProviderProcess?, files: [String], cofferd: String,
                        needsStart: Bool) {
        for competitor in competitors {
            Console.print("- \(competitor.explanation)")
            if let change = competitor.change {
                Console.print("  will \(change.summary)")
            } else {
                Console.print("  not changed by takeover: \(competitor.fix)")
            }
        }
        if let oldProvider {
            Console.print("- \(oldProvider.name) (pid \(oldProvider.pid)) owns org.freedesktop.secrets")
            Console.print("  will read its keyrings, then stop it")
        }
        for file in files { Console.print("- \(file): will be imported into cofferd") }
        if needsStart { Console.print("- will start \(cofferd)") }
    }

    /// Asks on the terminal; without one, `--yes` is required (stdin then carries the password).
    static func confirm() throws {
        guard Console.isTerminal(STDIN_FILENO) else {
            throw CofferError(.badArguments, "stdin is not a terminal: run with --yes to confirm")
        }
        Console.write("Proceed? [y/N] ")
        guard let answer = readLine(), ["y", "yes"].contains(answer.lowercased()) else {
            throw CofferError(.cancelled, "nothing was changed")
        }
    }

    /// Reverses the recorded changes, newest first, and forgets them.
    static func undoAll(_ directories: UserDirectories) throws {
        var state = try TakeoverState.load(directories.takeoverState)
        guard !state.changes.isEmpty else {
            Console.print("nothing to undo: no takeover changes are recorded in \(directories.takeoverState)")
            return
        }
        while let change = state.changes.last {
            Console.print(try ChangeApplier.undo(change))
            state.changes.removeLast()
            try state.save(directories.takeoverState)
        }
        Console.print("the old provider starts again at the next login (or start it now); items imported into "
            + "cofferd stay there, and gnome-keyring's files were never changed")
    }

    /// `--cofferd`, else `cofferd` next to this executable, else on PATH.
    static func locateCofferd(_ explicit: String?) throws -> String {
        if let explicit {
            guard FileManager.default.isExecutableFile(atPath: explicit) else {
                throw CofferError(.noInput, "\(explicit) is not an executable")
            }
            return explicit
        }
        var candidates: [String] = []
        if let me = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append((me as NSString).deletingLastPathComponent + "/cofferd")
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        candidates += path.split(separator: ":").map { "\($0)/cofferd" }
        guard let found = candidates.first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw CofferError(.noInput, "cannot find cofferd next to coffer or on PATH; pass --cofferd PATH")
        }
        return found
    }
}
