// SPDX-License-Identifier: Apache-2.0
// Runs the built `coffer` executable against a private bus, the way a user's shell would.

import Foundation
import SecretServiceTestSupport

/// Runs `coffer` for the import/export tests (see ``CofferCLI``).
enum CofferTool {
    /// Runs `coffer arguments…` with `input` on stdin (not a terminal, so passwords come from stdin).
    static func run(_ arguments: [String], input: String = "", on bus: TestBus) async throws -> ClientOutput {
        try await CofferCLI(bus: bus).run(arguments, input: input)
    }

    /// The JSON object `coffer … --json` printed.
    static func json(_ output: ClientOutput) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: output.stdout) as? [String: Any] else {
            throw CocoaError(.propertyListReadCorrupt)
        }
        return object
    }
}

/// What `secret-tool search --all` prints for one item: its label and attributes.
struct SecretToolListing: Equatable {
    var label: String
    var attributes: [String: String]

    init(label: String, attributes: [String: String]) {
        self.label = label
        self.attributes = attributes
    }

    /// Parses the output of a search that matched exactly one item.
    init(_ output: ClientOutput) {
        let lines = (output.text + "\n" + output.stderr).split(separator: "\n")
        label = lines.first { $0.hasPrefix("label = ") }.map { String($0.dropFirst("label = ".count)) } ?? ""
        attributes = [:]
        for line in lines where line.hasPrefix("attribute.") {
            guard let separator = line.range(of: " = ") else { continue }
            attributes[String(line[line.index(line.startIndex, offsetBy: "attribute.".count)..<separator.lowerBound])] =
                String(line[separator.upperBound...])
        }
    }
}
