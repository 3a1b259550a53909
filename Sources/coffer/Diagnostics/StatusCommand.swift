// SPDX-License-Identifier: Apache-2.0
// `coffer status`: who serves org.freedesktop.secrets, its collections and lock states, and where its files live.

import ArgumentParser
import DBusTransport
import Foundation
import SecretServiceClient

struct Status: CofferCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the provider that owns org.freedesktop.secrets, its collections, where its files live, "
            + "and the last prompt it could not show.",
        discussion: "Does not start a provider: when none runs, says whether the bus would activate one. "
            + "Exits 53 when there is no session bus or no provider running.")

    @OptionGroup var output: OutputOptions

    struct Report: Encodable {
        var bus: String?
        var owner: String?
        var process: ProviderProcess?
        var activatable: Bool
        var dataDirectory: String?
        var files: [String]
        var collections: [CollectionSummary]
        /// The last prompt the provider could not show (cofferd only).
        var lastFailedPrompt: FailedPromptReport?
    }

    func execute() async throws {
        let (probe, connection) = await ProviderProbe.run()
        guard let connection, probe.busFailure == nil else {
            throw CofferError.noBus(probe.busFailure ?? "unknown failure")
        }
        var report = Report(bus: probe.busAddress, owner: probe.owner, process: probe.process,
                            activatable: probe.activatable, dataDirectory: probe.process?.dataDirectory, files: [],
                            collections: [])
        if let directory = report.dataDirectory {
            report.files = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
        }
        if probe.owner != nil {
            let service = try await SecretService.connect(using: connection)
            do {
                report.collections = try await service.collectionSummaries()
                report.lastFailedPrompt = try await service.lastFailedPrompt()
                await service.close()
            } catch {
                await service.close()
                throw error
            }
        } else {
            await connection.close()
        }
        if output.json { try JSONOutput.print(report) } else { printText(report) }
        if probe.owner == nil {
            // The report went to stdout; the failure line is the one every other verb prints for it.
            if !probe.activatable { throw CofferError.noProvider }
            throw ExitCode(ExitStatus.noProvider.rawValue)
        }
    }

    private func printText(_ report: Report) {
        Console.print("bus:        \(report.bus ?? "(DBUS_SESSION_BUS_ADDRESS is not set)")")
        guard let owner = report.owner else {
            Console.print("provider:   none running"
                + (report.activatable ? " (the bus starts one on the first request)" : " and none activatable"))
            return
        }
        if let process = report.process {
            Console.print("provider:   \(process.name) (pid \(process.pid), \(owner))")
            if let executable = process.executable { Console.print("executable: \(executable)") }
        } else {
            Console.print("provider:   \(owner) (process unknown)")
        }
        if let directory = report.dataDirectory {
            Console.print("files:      \(directory)" + (report.files.isEmpty ? " (empty or missing)" : ""))
            for file in report.files { Console.print("              \(file)") }
        }
        Console.print("collections:")
        for collection in report.collections {
            let aliases = collection.aliases.isEmpty ? "" : " [" + collection.aliases.joined(separator: ", ") + "]"
            Console.print("  \(collection.id)\(aliases): \"\(collection.label)\", \(collection.locked ? "locked" : "unlocked"), "
                + "\(collection.items) item\(collection.items == 1 ? "" : "s")")
        }
        if let failure = report.lastFailedPrompt {
            let when = Date(timeIntervalSince1970: TimeInterval(failure.time)).formatted(.iso8601)
            Console.print("last failed prompt: \(when), asked by \(failure.caller): \(failure.reason)")
        }
    }
}
