// SPDX-License-Identifier: Apache-2.0
// Runs a file-inspecting tool (ldd, dpkg-deb, mandoc, bwrap) to completion and keeps its output.

import Foundation
import SecretServiceTestSupport

/// A tool that inspects files, run to completion with the test's environment (no bus or home is involved).
enum Command {
    struct Output {
        var status: Int32
        var text: String
        var stderr: String
    }

    static func run(_ executable: String, _ arguments: [String]) async throws -> Output {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("coffer-command-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("out"), err = scratch.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        let status = try await process.runToEnd()
        return Output(status: status, text: String(decoding: try Data(contentsOf: out), as: UTF8.self),
                      stderr: String(decoding: try Data(contentsOf: err), as: UTF8.self))
    }
}
