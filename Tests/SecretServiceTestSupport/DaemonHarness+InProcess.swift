// SPDX-License-Identifier: Apache-2.0
// The in-process mode: SecretServiceDaemon in a ServiceGroup owned by the harness, logging to a file.

import DBusWire
import Foundation
import Logging
import SecretServiceDaemon
import ServiceLifecycle

extension DaemonHarness {
    static func startInProcess(on bus: TestBus, prompter: any Prompter, timeout: Duration) async throws
        -> DaemonHarness {
        let logFile = bus.directory.appendingPathComponent("cofferd.log")
        let sink = try FileLogSink(url: logFile)
        var logger = Logger(label: "cofferd") { label in FileLogHandler(label: label, sink: sink) }
        logger.logLevel = .debug
        let daemon = SecretServiceDaemon(
            // Access control off, as for subprocesses (startSubprocess says why).
            configuration: DaemonConfiguration(busAddress: bus.address, prompter: prompter, accessPolicy: .off),
            logger: logger)
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [.init(service: daemon, successTerminationBehavior: .gracefullyShutdownGroup)],
            logger: logger))
        let ended = ProcessExitMonitor()
        let runner = Task<DaemonExit, Never> {
            let exit: DaemonExit
            do {
                try await group.run()
                exit = .exited(0)
            } catch {
                exit = .failed("\(error)")
            }
            ended.record(exit)
            return exit
        }

        enum Readiness: Sendable {
            case ready(String)
            case ended(DaemonExit)
            case timedOut
        }
        let readiness = await withTaskGroup(of: Readiness?.self) { waiters in
            waiters.addTask {
                for await name in daemon.readiness { return .ready(name) }
                return nil
            }
            waiters.addTask { await ended.wait().map(Readiness.ended) }
            waiters.addTask {
                await deadlinePassed(after: timeout) ? .timedOut : nil
            }
            defer { waiters.cancelAll() }
            while let next = await waiters.next() {
                if let next { return next }
            }
            return Readiness.timedOut
        }

        switch readiness {
        case .ready(let name):
            guard let uniqueName = BusName(name) else { throw StartError("the daemon reported the name '\(name)'") }
            let cancelled = DaemonExit.failed("stopped waiting: the task was cancelled")
            let control = Control(
                stop: {
                    // Graceful shutdown first; a daemon that does not finish in 15 s is cancelled, and the result
                    // says so (as SIGKILL does for the subprocess).
                    await group.triggerGracefulShutdown()
                    if let exit = try? await withDeadline(.seconds(15), waitingFor: "graceful shutdown", {
                        await ended.wait()
                    }) {
                        return exit
                    }
                    runner.cancel()
                    let forced = await ended.wait() ?? cancelled
                    return .failed("graceful shutdown did not finish within 15 s; cancelled (\(forced))")
                },
                kill: {
                    runner.cancel()
                    return await ended.wait() ?? cancelled
                },
                wait: { await ended.wait() ?? cancelled })
            return DaemonHarness(bus: bus, uniqueName: uniqueName, logFile: logFile, processID: nil, control: control)
        case .ended(let exit):
            throw StartError("the in-process daemon \(exit) before serving; log:\n\(tail(of: logFile))")
        case .timedOut:
            runner.cancel()
            _ = await runner.value
            throw StartError("the in-process daemon did not serve within \(timeout); log:\n\(tail(of: logFile))")
        }
    }
}
