// SPDX-License-Identifier: Apache-2.0
// The version cofferd reports.

enum CofferVersion {
    static let string = "0.1.0"
}
