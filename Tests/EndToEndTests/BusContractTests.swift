import DBusKit
import DeviceContract
import DeviceLaunch
import Foundation
import TestSupport
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `Bus/` documents the contract one interface per file; the live objects must say the same.
@Suite(.serialized) struct BusContractTests {
    static let busFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Bus")

    static let hubInterfaces = [
        HubMethod.interface, BrokerMethod.interface, KeyServiceMethod.interface,
        NotifyMethod.interface,
    ]

    @Test(.tags(.device), .devicesWanted, .timeLimit(.minutes(3)))
    func theHubObjectIntrospectsAsBusFolderDocuments() async throws {
        try await DetachedDevice.with { device in
            let xml = try await withBus(device.address) { bus in
                try await bus.call(
                    destination: DeviceBus.hubName, path: DeviceBus.hubPath,
                    interface: "org.freedesktop.DBus.Introspectable", member: "Introspect")
            }
            let live = try InterfaceShapes.parse(try #require(xml.first?.string))
            #expect(live.keys.filter { $0.hasPrefix("dev.sdlab.") }.sorted() == Self.hubInterfaces.sorted())
            for interface in Self.hubInterfaces {
                let file = Self.busFolder.appendingPathComponent("\(interface).xml")
                let documented = try InterfaceShapes.parse(String(contentsOf: file, encoding: .utf8))
                #expect(documented.keys.sorted() == [interface], "\(file.path) holds one interface")
                #expect(documented[interface] == live[interface], "\(file.lastPathComponent) and the live hub differ")
            }
        }
    }

    @Test(.tags(.device), .devicesWanted, .timeLimit(.minutes(3)))
    func anAppObjectIntrospectsAsBusFolderDocuments() async throws {
        try await AppDevice.with { lab in
            try await lab.launch(AppSpec(name: "mail", sdk: .msal))
            let xml = try await lab.connection.call(
                destination: AppBus.namePrefix + "mail", path: AppBus.path,
                interface: "org.freedesktop.DBus.Introspectable", member: "Introspect")
            let live = try InterfaceShapes.parse(try #require(xml.first?.string))
            #expect(live.keys.filter { $0.hasPrefix("dev.sdlab.") } == [AppBus.interface])
            let file = Self.busFolder.appendingPathComponent("\(AppBus.interface).xml")
            let documented = try InterfaceShapes.parse(String(contentsOf: file, encoding: .utf8))
            #expect(documented.keys.sorted() == [AppBus.interface])
            #expect(
                documented[AppBus.interface] == live[AppBus.interface],
                "\(file.lastPathComponent) and the live app differ")
        }
    }

    @Test func theParserSeesEveryDifference() throws {
        let base = """
            <node><interface name="a.B"><method name="M"><arg name="x" type="s" direction="in"/></method>
            <signal name="S"><arg name="y" type="t"/></signal><property name="P" type="b" access="read"/></interface></node>
            """
        let shape = try InterfaceShapes.parse(base)
        #expect(shape["a.B"] == ["method M", "  in s x", "signal S", "  out t y", "property P b read"])
        for changed in [
            base.replacingOccurrences(of: "type=\"s\"", with: "type=\"i\""),
            base.replacingOccurrences(of: "direction=\"in\"", with: "direction=\"out\""),
            base.replacingOccurrences(of: "access=\"read\"", with: "access=\"readwrite\""),
            base.replacingOccurrences(of: "name=\"x\"", with: "name=\"z\""),
        ] {
            #expect(try InterfaceShapes.parse(changed) != shape)
        }
    }
}

/// Each interface of an introspection document as lines (members, arguments, properties in
/// order), leaving out comments and the document header.
enum InterfaceShapes {
    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    static func parse(_ xml: String) throws -> [String: [String]] {
        let collector = Collector()
        let parser = XMLParser(data: Data(xml.utf8))
        parser.delegate = collector
        guard parser.parse() else { throw Malformed(description: "\(parser.parserError.map { "\($0)" } ?? "bad XML")") }
        return collector.interfaces
    }

    private final class Collector: NSObject, XMLParserDelegate {
        var interfaces: [String: [String]] = [:]
        private var current: String?

        func parser(
            _ parser: XMLParser, didStartElement element: String, namespaceURI: String?,
            qualifiedName: String?, attributes: [String: String] = [:]
        ) {
            let name = attributes["name"] ?? ""
            switch element {
            case "interface":
                current = name
                interfaces[name] = []
            case "method", "signal":
                add("\(element) \(name)")
            case "arg":
                add("  \(attributes["direction"] ?? "out") \(attributes["type"] ?? "?") \(name)")
            case "property":
                add("property \(name) \(attributes["type"] ?? "?") \(attributes["access"] ?? "?")")
            default:
                break
            }
        }

        func parser(_ parser: XMLParser, didEndElement element: String, namespaceURI: String?, qualifiedName: String?) {
            if element == "interface" { current = nil }
        }

        private func add(_ line: String) {
            if let current { interfaces[current, default: []].append(line) }
        }
    }
}
