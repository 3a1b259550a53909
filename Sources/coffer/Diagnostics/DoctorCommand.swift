// SPDX-License-Identifier: Apache-2.0
// `coffer doctor`: the checks a user would otherwise do by hand, each finding with its fix.

import ArgumentParser
import DBusTransport
import Foundation
import SecretServiceClient

struct Doctor: CofferCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the session bus, the provider, competing providers, activation files, cofferd's systemd "
            + "unit, the PAM stack, file permissions and integrity, synchronized collections, pinentry.",
        discussion: "Prints one line per finding (ok, warning, error) and a fix for each problem. A provider other "
            + "than cofferd that owns the name or will take it at login (gnome-keyring's autostart entry, "
            + "activation files or enabled systemd units, KeePassXC's integration) is an error; pam_gnome_keyring "
            + "lines, and a PAM stack without pam_coffer.so's auth, session or password line, are warnings. A "
            + "synchronized collection whose folder is missing, or another device's journal that cofferd set aside "
            + "(damaged, rolled back, forked), is an error. Exits 0 when nothing is an error, 1 otherwise. Does not start a provider.")

    @OptionGroup var output: OutputOptions

    @Option(name: .long, help: .hidden)
    var systemRoot: String?

    func execute() async throws {
        let environment = ProcessInfo.processInfo.environment
        var findings: [DoctorFinding] = []
        let (probe, connection) = await ProviderProbe.run()
        var loadedIDs: Set<String>?
        if let failure = probe.busFailure {
            findings.append(.error("bus", "no session bus: \(failure)", fix: "log in to a desktop session, or run "
                + "`dbus-run-session -- $SHELL`, whose bus starts cofferd on the first request"))
        } else {
            findings.append(.ok("bus", probe.busAddress ?? "session bus"))
        }
        if let process = probe.process {
            if process.isCofferd {
                findings.append(.ok("provider", "cofferd (pid \(process.pid)) owns org.freedesktop.secrets"))
            } else {
                findings.append(.error("provider", "\(process.name) (pid \(process.pid)) owns "
                    + "org.freedesktop.secrets, not cofferd", fix: "run `coffer takeover` (imports its keyrings, "
                    + "stops it and keeps it from starting again)"))
            }
        } else if probe.busFailure == nil {
            findings.append(probe.activatable
                ? .ok("provider", "none running; the bus starts one on the first request")
                : .error("provider", "no provider runs and none can be activated",
                         fix: "start `cofferd --foreground &` in the session, or reinstall Coffer's "
                            + "activation file (see `activation` below)"))
        }
        if let connection {
            if probe.process?.isCofferd == true, let service = try? await SecretService.connect(using: connection) {
                loadedIDs = Set(((try? await service.collections()) ?? []).map { CollectionReference(path: $0).id })
                await service.close()
            } else {
                await connection.close()
            }
        }
        findings += DoctorChecks.activation(environment: environment)
        var directories = UserDirectories(environment: environment)
        if let systemRoot { directories.systemRoot = systemRoot }
        let cofferd = (try? Takeover.locateCofferd(nil)) ?? "cofferd"
        findings += DoctorChecks.competitors(directories, cofferd: cofferd)
        findings += DoctorChecks.loginUnlock(directories)
        // The prefix cofferd was installed under is the one its activation file names, if one does.
        let activated = CompetitorSurvey.activationFile(
            for: "org.freedesktop.secrets", in: [directories.userServices] + directories.systemServices)
        let installed = activated.flatMap { $0.exec.contains("cofferd") ? $0.exec.split(separator: " ").first : nil }
        findings += DoctorChecks.unitLocation(directories, cofferd: installed.map(String.init) ?? cofferd)
        let directory = probe.process.flatMap { $0.isCofferd ? $0.dataDirectory : nil } ?? Self.defaultDataDirectory
        findings += DoctorChecks.dataDirectory(directory, loadedIDs: loadedIDs)
        findings += DoctorChecks.synchronizedCollections(directory)
        findings += DoctorChecks.directoryLock(directory, provider: probe.process.flatMap { $0.isCofferd ? $0.pid : nil })
        findings += DoctorChecks.pinentry(arguments: probe.process?.isCofferd == true ? probe.process!.arguments : [],
                                          environment: environment)
        if output.json { try JSONOutput.print(findings) } else { findings.forEach { Console.print($0.text) } }
        if findings.contains(where: { $0.severity == .error }) { throw ExitCode(ExitStatus.failure.rawValue) }
    }

    /// cofferd's default: `$XDG_DATA_HOME/coffer`, else `~/.local/share/coffer`.
    static var defaultDataDirectory: String {
        let environment = ProcessInfo.processInfo.environment
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty { return data + "/coffer" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share/coffer"
    }
}
