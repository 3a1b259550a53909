// SPDX-License-Identifier: Apache-2.0
// Builds introspection XML from interface declarations and child node names.

import DBusWire

/// Renders `org.freedesktop.DBus.Introspectable` documents.
public enum Introspection {
    static let doctype = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">

        """

    /// The XML for one object: its interfaces, then its children as `<node name="…"/>`.
    public static func document(interfaces: [InterfaceDescription], children: [String]) -> String {
        var xml = doctype + "<node>\n"
        for interface in interfaces { xml += render(interface) }
        for child in children { xml += "  <node name=\"\(escape(child))\"/>\n" }
        xml += "</node>\n"
        return xml
    }

    /// The XML of one interface, indented for inclusion in a node.
    public static func render(_ interface: InterfaceDescription) -> String {
        var xml = "  <interface name=\"\(interface.name)\">\n"
        for method in interface.methods {
            xml += "    <method name=\"\(method.name)\">\n"
            for arg in method.inputs { xml += argument(arg, direction: "in") }
            for arg in method.outputs { xml += argument(arg, direction: "out") }
            xml += "    </method>\n"
        }
        for signal in interface.signals {
            xml += "    <signal name=\"\(signal.name)\">\n"
            for arg in signal.arguments { xml += argument(arg, direction: nil) }
            xml += "    </signal>\n"
        }
        for property in interface.properties {
            xml += "    <property name=\"\(escape(property.name))\" type=\"\(escape(property.type.description))\" "
                + "access=\"\(property.access.rawValue)\"/>\n"
        }
        xml += "  </interface>\n"
        return xml
    }

    private static func argument(_ arg: ArgumentDescription, direction: String?) -> String {
        var xml = "      <arg name=\"\(escape(arg.name))\" type=\"\(escape(arg.type.description))\""
        if let direction { xml += " direction=\"\(direction)\"" }
        return xml + "/>\n"
    }

    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}
