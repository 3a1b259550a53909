// SPDX-License-Identifier: Apache-2.0
// `--json`: the option every command shares and the one encoder that prints machine-readable results.

import ArgumentParser
import Foundation

/// The output options shared by commands: `@OptionGroup var output: OutputOptions`.
struct OutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print the result as JSON on stdout (for scripts) instead of human text.")
    var json = false
}

/// Prints results as JSON: one document per command, sorted keys, so scripts and tests can rely on the shape.
enum JSONOutput {
    /// Encodes `value` and writes it with a trailing newline to stdout.
    /// - Throws: ``CofferError`` (``ExitStatus/failure``) when the value cannot be encoded.
    static func print(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        do {
            let data = try encoder.encode(value)
            Console.write(String(decoding: data, as: UTF8.self) + "\n")
        } catch {
            throw CofferError(.failure, "cannot encode the result as JSON: \(error)")
        }
    }

    /// Writes `{"status": "ok"}`-style acknowledgements for commands that have no other result.
    static func acknowledge(_ fields: [String: String] = [:]) throws {
        try print(fields.merging(["status": "ok"]) { current, _ in current })
    }

    /// ``date(_:)``, or `nil` for 0: the Secret Service's "unknown" (a locked item's hidden dates), not 1970.
    static func knownDate(_ unixSeconds: UInt64) -> String? {
        unixSeconds == 0 ? nil : date(unixSeconds)
    }

    /// Formats Unix seconds as ISO 8601 (UTC), the way every date appears in coffer's JSON.
    static func date(_ unixSeconds: UInt64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(unixSeconds)))
    }
}
