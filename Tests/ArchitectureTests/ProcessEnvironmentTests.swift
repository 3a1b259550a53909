// SPDX-License-Identifier: Apache-2.0
// Keeps tests from changing the process environment, which every suite of the run shares.

import Foundation
import Testing

@Suite("Process environment")
struct ProcessEnvironmentTests {
    /// Suites run in parallel in one process. A `setenv` can move `environ` while another thread copies it to start
    /// a child (Foundation's `Process.run` does), and that thread then reads freed memory: the whole run crashes.
    @Test("no test sets, unsets or clears an environment variable of its own process")
    func noEnvironmentChanges() throws {
        let change = try NSRegularExpression(pattern: #"\b(setenv|unsetenv|putenv|clearenv)\s*\("#)
        let offenders = try SourceTree.files(under: ["Tests"], matching: change)
        #expect(offenders.isEmpty, "\(offenders): pass the value in, or set it in a child process's environment")
    }
}
