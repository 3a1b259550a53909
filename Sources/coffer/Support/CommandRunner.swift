// SPDX-License-Identifier: Apache-2.0
// The one place a command's failure becomes a stderr line and an exit status.

import ArgumentParser

/// A coffer subcommand: it implements ``execute()`` and gets `run()`, which reports any thrown error as one line on
/// stderr and exits with the error's ``ExitStatus``.
protocol CofferCommand: AsyncParsableCommand {
    /// The command's work. Throw ``CofferError`` (or let library errors through); never print the failure yourself.
    mutating func execute() async throws
}

extension CofferCommand {
    mutating func run() async throws {
        do {
            try await execute()
        } catch let exit as ExitCode {
            throw exit  // a command that already reported its own outcome
        } catch {
            throw CommandRunner.report(error)
        }
    }
}

enum CommandRunner {
    /// Prints the failure's line and returns the `ExitCode` to throw from `run()`.
    static func report(_ error: any Error) -> ExitCode {
        let (status, message) = FailureReport.describe(error)
        Console.error(message)
        return ExitCode(status.rawValue)
    }
}
