import DBusKit
import DeviceProcesses
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// One value (or several) sent to `Echo` and expected back unchanged.
struct EchoCase: Sendable, CustomTestStringConvertible {
    let label: String
    let values: [DBusValue]
    init(_ label: String, _ values: DBusValue...) {
        self.label = label
        self.values = values
    }
    var testDescription: String { "\(label) (\(values.signature))" }
}

extension EchoCase {
    static let basics: [EchoCase] = [
        .init("byte", .byte(0)), .init("byte max", .byte(.max)),
        .init("bool true", .bool(true)), .init("bool false", .bool(false)),
        .init("int16 min", .int16(.min)), .init("int16 max", .int16(.max)),
        .init("uint16 max", .uint16(.max)),
        .init("int32 min", .int32(.min)), .init("int32 -1", .int32(-1)),
        .init("uint32 max", .uint32(.max)),
        .init("int64 min", .int64(.min)), .init("int64 max", .int64(.max)),
        .init("uint64 max", .uint64(.max)),
        .init("double", .double(-1234.5678e-300)), .init("double infinity", .double(-.infinity)),
        .init("empty string", .string("")), .init("unicode string", .string("héllo ✓ 🚀\ttab")),
        .init("root path", .objectPath("/")), .init("object path", .objectPath("/a/b_c/D9")),
        .init("empty signature", .signature("")), .init("signature", .signature("a{sv}(ii)h")),
    ]

    static let containers: [EchoCase] = [
        .init("array of strings", .strings(["a", "b", ""])),
        .init("array of int32", .array(element: "i", [.int32(1), .int32(-2), .int32(.max)])),
        .init("array of doubles", .array(element: "d", [.double(0.5), .double(-2)])),
        .init(
            "array of structs",
            .array(element: "(is)", [.structure([.int32(1), "one"]), .structure([.int32(2), "two"])])),
        .init("empty array of strings", .strings([])),
        .init("empty array of structs", .array(element: "(is)", [])),
        .init("empty byte array", .array(element: "y", [])),
        .init("empty a{sv}", .vardict([:])),
        .init("a{sv}", .vardict(["name": "phone", "level": .uint32(42), "tags": .strings(["x", "y"]), "on": true])),
        .init(
            "a{s(ii)}",
            .dictionary(
                key: "s", value: "(ii)",
                [
                    .init("origin", .structure([.int32(0), .int32(0)])),
                    .init("corner", .structure([.int32(-5), .int32(7)])),
                ])),
        .init(
            "a{ia{ss}}",
            .dictionary(
                key: "i", value: "a{ss}",
                [
                    .init(.int32(1), .dictionary(key: "s", value: "s", [.init("k", "v")]))
                ])),
        .init("nested struct", .structure(["top", .structure([.int32(-1), .int64(.min)]), .strings(["p", "q"])])),
        .init("variant of a basic", .variant(.uint16(7))),
        .init("variant of an array", .variant(.strings(["v1", "v2"]))),
        .init("variant of a{sv}", .variant(.vardict(["inner": .variant(.int32(3))]))),
        .init("variant of a struct", .variant(.structure([.int32(1), .array(element: "y", [.byte(9)])]))),
        .init("variant of a variant", .variant(.variant(.objectPath("/v")))),
        .init("64 nested containers", nested(32) { .structure([.variant($0)]) }),
        .init("32 nested arrays", nested(32) { .array(element: $0.signature, [$0]) }),
        .init("ay", .array(element: "y", [0, 1, 127, 128, 255].map(DBusValue.byte))),
        .init(
            "aay",
            .array(
                element: "ay",
                [
                    .array(element: "y", [.byte(1), .byte(2)]), .array(element: "y", []),
                    .array(element: "y", [.byte(3)]),
                ])),
    ]

    /// Many arguments of different types in one call.
    static let table = EchoCase(
        "many arguments",
        .byte(7), .bool(true), .int16(-3), .uint16(3), .int32(-70_000), .uint32(70_000), .int64(-1 << 40),
        .uint64(1 << 63), .double(2.5), "text", .objectPath("/t"), .signature("a(sv)"),
        .strings(["a"]), .vardict(["k": .double(1)]), .structure([.int32(1), "s"]), .variant(.bool(false)),
        .array(element: "y", [.byte(1)]))
}

@Suite(.tags(.device), .devicesWanted) struct RoundTripTests {
    @Test(.timeLimit(.minutes(3)), arguments: EchoCase.basics + EchoCase.containers + [EchoCase.table])
    func echoThroughTheBus(_ sample: EchoCase) async throws {
        try await withConnections(2) { _, connections in
            let reply = try await echo(sample.values, from: connections[1], to: connections[0])
            #expect(reply == sample.values)
            #expect(reply.signature == sample.values.signature)
        }
    }

    /// A unix fd arrives as a new descriptor (a dup made by the transport) of the same pipe.
    @Test(.timeLimit(.minutes(3)))
    func unixFileDescriptor() async throws {
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        let (readEnd, writeEnd) = (ends[0], ends[1])
        defer {
            close(readEnd)
            close(writeEnd)
        }
        let serverFDs = Locked<[Int32]>([])
        try await withConnections(2) { _, connections in
            let (server, client) = (connections[0], connections[1])
            try server.export(
                [
                    DBusInterface(
                        testInterface,
                        methods: [
                            .init("Echo", in: [.init("fd", "h")], out: [.init("fd", "h")]) { call in
                                if case .unixFD(let fd) = call.arguments[0] { serverFDs.update { $0.append(fd) } }
                                return call.arguments
                            }
                        ])
                ], at: testPath)
            let reply = try await client.call(
                destination: server.uniqueName, path: testPath, interface: testInterface,
                member: "Echo", [.unixFD(readEnd)], timeout: .seconds(20))
            guard case .unixFD(let received) = try #require(reply.first) else {
                Issue.record("expected a unix fd, got \(reply)")
                return
            }
            defer { close(received) }
            defer { for fd in serverFDs.value { close(fd) } }

            let handlerFD = try #require(serverFDs.value.first)
            #expect(Set([readEnd, writeEnd, handlerFD, received]).count == 4, "every hop gets a descriptor of its own")
            #expect(fcntl(received, F_GETFD) != -1, "the received fd is open")
            #expect(sameFile(received, readEnd))

            // Bytes written into the pipe come out of the received descriptor.
            let ping = Array("ping".utf8)
            #expect(write(writeEnd, ping, ping.count) == ping.count)
            var entry = pollfd(fd: received, events: Int16(POLLIN), revents: 0)
            try #require(poll(&entry, 1, 5_000) == 1, "the received fd becomes readable")
            var buffer = [UInt8](repeating: 0, count: 16)
            let count = read(received, &buffer, buffer.count)
            #expect(Array(buffer.prefix(max(count, 0))) == ping)
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func oneMebibyteString() async throws {
        let text = String(repeating: "0123456789abcdef", count: 65_536)
        #expect(text.utf8.count == 1_048_576)
        try await withConnections(2) { _, connections in
            let reply = try await echo([.string(text)], from: connections[1], to: connections[0])
            #expect(reply.count == 1)
            #expect(reply.first?.string == text)
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func oneMebibyteByteArray() async throws {
        let bytes = (0..<1_048_576).map { DBusValue.byte(UInt8(truncatingIfNeeded: $0 % 251)) }
        try await withConnections(2) { _, connections in
            let reply = try await echo([.array(element: "y", bytes)], from: connections[1], to: connections[0])
            let items = try #require(reply.first?.items)
            #expect(items.count == bytes.count)
            #expect(items == bytes)
        }
    }
}

private func sameFile(_ a: Int32, _ b: Int32) -> Bool {
    var first = stat(), second = stat()
    guard fstat(a, &first) == 0, fstat(b, &second) == 0 else { return false }
    return first.st_dev == second.st_dev && first.st_ino == second.st_ino
}
