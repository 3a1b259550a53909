// SPDX-License-Identifier: Apache-2.0
// What the coffer CLI suites share: the providers they run against and the warning a secret on argv gives.

import SecretServiceTestSupport

/// The providers the security(1) verbs are tested against.
typealias Provider = TestProvider

/// The line a secret on argv must produce.
let argvWarning = "visible to other processes"
