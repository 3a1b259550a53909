// SPDX-License-Identifier: Apache-2.0
// Why a device's journal is set aside.

/// What was wrong with a journal. A journal found damaged is set aside: nothing more of it reaches the local state
/// until someone deals with it, and the reason is what `coffer sync status` and `coffer doctor` show. None of these
/// is ever the result of a sync engine delivering a file in pieces: a file that ends early is "not yet arrived".
public enum JournalDamage: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes do not have the journal's structure (a length no writer produces, an unknown record kind).
    case malformed(String)
    /// The header names another collection or device than the file's place in the folder: a journal copied or
    /// renamed over another one.
    case misplaced(String)
    /// The header or a record does not carry a valid MAC: altered, or written without the collection's key.
    case tampered(sequence: UInt64?)
    /// Records are missing or out of order: the next record does not carry the next sequence number.
    case outOfSequence(expected: UInt64, found: UInt64)
    /// The file is shorter than what was already verified of it, or gone.
    case truncated(verified: Int, found: Int)
    /// An older journal of the device came back after a newer one (compactions only count up).
    case rolledBack(verified: UInt64, found: UInt64)
    /// A different history under a place already verified: two copies of one device wrote on (a machine restored
    /// from a backup, a cloned disk), or a journal was swapped for another of the same device.
    case forked(sequence: UInt64)

    public var description: String {
        switch self {
        case .malformed(let reason): "malformed journal: \(reason)"
        case .misplaced(let reason): "journal in the wrong place: \(reason)"
        case .tampered(let sequence?): "record \(sequence) fails authentication"
        case .tampered(nil): "the journal header fails authentication"
        case .outOfSequence(let expected, let found): "record \(found) where record \(expected) belongs"
        case .truncated(let verified, let found): "journal cut to \(found) bytes below the \(verified) already verified"
        case .rolledBack(let verified, let found):
            "journal rolled back to compaction \(found) after compaction \(verified) was verified"
        case .forked(let sequence): "journal history differs from the one verified, at or before record \(sequence)"
        }
    }
}
