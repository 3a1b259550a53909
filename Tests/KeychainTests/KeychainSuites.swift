// SPDX-License-Identifier: Apache-2.0
// The parent of every Keychain suite, run one test at a time.

import Testing

/// SecItem calls block their caller, as Apple's do, and tests call them from async test functions on the shared
/// concurrency pool, which has one thread per core. Running the Keychain tests one at a time keeps at most one pool
/// thread blocked, so the rest of the suite (and the client's signal handling) keeps a thread to run on.
@Suite(.serialized)
enum KeychainSuites {}
