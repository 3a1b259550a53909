// SPDX-License-Identifier: Apache-2.0
// `coffer doctor`: the checks a user would otherwise do by hand, each finding with its fix.

import ArgumentParser
import DBusTransport
import Foundation
import SecretServiceClient

struct Doctor: CofferCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the session bus, the provider, activation files, file permissions and integrity, pinentry.",
        discussion: "Prints one line per finding (ok, warning, error) and a fix for each problem. Exits 0 when "
            + "nothing is an error, 1 otherwise. Does not start a provider.")

    @OptionGroup var output: OutputOptions

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
                findings.append(.warning("provider", "\(process.name) (pid \(process.pid)) owns "
                    + "org.freedesktop.secrets, not cofferd", fix: "stop it (`kill \(process.pid)`) and keep it from "
                    + "starting (see autostart/activation below), or run `cofferd --replace` if it allows replacement"))
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
        findings += DoctorChecks.autostart(environment: environment)
        let directory = probe.process.flatMap { $0.isCofferd ? $0.dataDirectory : nil } ?? Self.defaultDataDirectory
        findings += DoctorChecks.dataDirectory(directory, loadedIDs: loadedIDs)
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
