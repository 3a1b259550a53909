// SPDX-License-Identifier: Apache-2.0
// One result of `coffer doctor`: what was checked, what was found, and how to fix it.

/// A doctor finding. `fix` says what to run or change; it is empty for findings that need nothing.
struct DoctorFinding: Encodable {
    enum Severity: String, Encodable {
        case ok, warning, error
    }

    var check: String
    var severity: Severity
    var message: String
    var fix: String?

    static func ok(_ check: String, _ message: String) -> DoctorFinding {
        DoctorFinding(check: check, severity: .ok, message: message, fix: nil)
    }

    static func warning(_ check: String, _ message: String, fix: String) -> DoctorFinding {
        DoctorFinding(check: check, severity: .warning, message: message, fix: fix)
    }

    static func error(_ check: String, _ message: String, fix: String) -> DoctorFinding {
        DoctorFinding(check: check, severity: .error, message: message, fix: fix)
    }

    /// `ok      bus: …` and, for problems, an indented `fix: …` line.
    var text: String {
        let tag = severity.rawValue + String(repeating: " ", count: 8 - severity.rawValue.count)
        var line = "\(tag)\(check): \(message)"
        if let fix { line += "\n        fix: \(fix)" }
        return line
    }
}
