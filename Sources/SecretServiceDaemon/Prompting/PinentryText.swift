// SPDX-License-Identifier: Apache-2.0
// The words a pinentry dialog shows for each kind of prompt.

import DBusWire

/// The texts of one pinentry dialog.
struct PinentryText {
    static let passwordPrompt = "Password:"
    static let confirmPrompt = "Confirm:"
    static let mismatch = "Passwords do not match"
    static let cancel = "Cancel"

    /// The window title (`SETTITLE`).
    var title: String
    /// The explanation above the entry (`SETDESC`).
    var description: String
    /// The OK button (`SETOK`).
    var ok: String
    /// The explanation when we ask for the confirmation ourselves.
    var confirmDescription = ""

    /// An approval.
    init(_ request: PromptRequest) {
        switch request.kind {
        case .unlock(let label):
            title = "Unlock Keyring"
            description = "An application wants access to \(Self.keyring(label))." + Self.origin(request.caller.rawValue)
            ok = "Unlock"
        }
    }

    /// The password of an existing collection.
    init(unlocking request: PasswordRequest) {
        title = "Unlock Keyring"
        description = "An application wants access to \(Self.keyring(request.collectionLabel)). "
            + "Enter its password to unlock it." + Self.origin(request.caller.rawValue)
        ok = "Unlock"
    }

    /// The password of a new collection.
    init(creating request: PasswordRequest) {
        let label = request.collectionLabel
        title = "New Keyring Password"
        description = (label.isEmpty ? "An application wants to create a new keyring. "
            : "An application wants to create a new keyring called “\(label)”. ")
            + "Choose the password you want to use for it." + Self.origin(request.caller.rawValue)
        ok = "Create"
        confirmDescription = "Enter the password for \(label.isEmpty ? "the new keyring" : "“\(label)”") again."
    }

    /// The current password of a collection whose password is being changed.
    init(changingFrom request: PasswordRequest) {
        title = "Change Keyring Password"
        description = "An application wants to change the password of \(Self.keyring(request.collectionLabel)). "
            + "Enter its current password." + Self.origin(request.caller.rawValue)
        ok = "Continue"
    }

    /// The new password of a collection whose password is being changed.
    init(changingTo request: PasswordRequest) {
        let label = request.collectionLabel
        title = "Change Keyring Password"
        description = "Choose the new password for \(Self.keyring(label))." + Self.origin(request.caller.rawValue)
        ok = "Change"
        confirmDescription = "Enter the new password for \(label.isEmpty ? "the keyring" : "“\(label)”") again."
    }

    private static func keyring(_ label: String) -> String {
        label.isEmpty ? "an unnamed keyring" : "the keyring “\(label)”"
    }

    /// Which client asked: its unique bus name is all we know for certain.
    private static func origin(_ caller: String) -> String {
        "\n\nRequested by the D-Bus client \(caller)."
    }
}
