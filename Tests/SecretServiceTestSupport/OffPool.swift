// SPDX-License-Identifier: Apache-2.0
// Runs the long parse-everything loops on a Dispatch thread instead of the cooperative pool.

import Dispatch

/// Runs `check` for `0..<cases` on a Dispatch thread and returns what it reported (nil means "as expected").
///
/// These loops are seconds of synchronous work. On the cooperative pool (one thread per core, two on CI) they would
/// starve other suites' D-Bus clients into call timeouts; Dispatch's global queue has threads of its own. The
/// results come back as text because an expectation recorded on a Dispatch thread has no test to belong to.
public func unexpectedOutcomes(_ cases: Int, _ check: @escaping @Sendable (Int) -> String?) async -> [String] {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(returning: (0..<cases).compactMap(check))
        }
    }
}
