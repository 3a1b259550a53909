// SPDX-License-Identifier: Apache-2.0
// The sanitizer settings child processes inherit, so an instrumented cofferd or client reports like the test does.

import Foundation

/// Under `make test-asan` / `make test-tsan` the programs the tests start are instrumented too. Their environments
/// are built from scratch (never the user's), so the sanitizer options are passed on explicitly: without them a
/// child would keep running past a report, or report leaks the test run has turned off.
enum SanitizerOptions {
    static let names = ["ASAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"]

    /// The options set in this process's environment.
    static var inherited: [String: String] {
        names.reduce(into: [:]) { options, name in options[name] = ProcessInfo.processInfo.environment[name] }
    }
}
