// SPDX-License-Identifier: Apache-2.0
// Releasing the descriptors a received message carries once the application is done with it.

public import DBusWire

extension Message {
    /// Closes every Unix file descriptor in the body of a message this library delivered (each `h` value received is
    /// a duplicate the receiver owns). A service that takes no descriptors calls it after handling every incoming
    /// message, so a client that attaches descriptors to its calls or signals cannot exhaust the service's
    /// descriptor table. Call it once per received message, and never on a message you built yourself.
    public func closeReceivedUnixFileDescriptors() {
        MessageDecoder.closeUnixFDs(in: body)
    }
}
