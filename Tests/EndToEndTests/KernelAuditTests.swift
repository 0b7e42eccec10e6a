import Testing

@testable import DeviceLaunch

/// The kernel's audit records, as Landlock and the system call audit write them, read into the
/// refusals a run names (the records are the kernel's own, copied from a refused `sh -c '… > FILE'`).
struct KernelAuditTests {
    static let denial = AuditRecord(
        type: 1423,
        text: #"audit(1796176746.668:3): domain=12e73e561 blockers=fs.make_reg path="/tmp" dev="vda" ino=253853"#)
    static let domain = AuditRecord(
        type: 1424,
        text:
            #"audit(1796176746.668:3): domain=12e73e561 status=allocated mode=enforcing pid=17953 uid=0 exe="/tmp/audit/try" comm="try""#
    )
    static let syscall = AuditRecord(
        type: 1300,
        text:
            #"audit(1796176746.668:3): arch=c000003e syscall=257 success=no exit=-13 a0=ffffff9c a1=555d3f941bc0 a2=241 a3=1b6 items=0 ppid=17952 pid=17954 auid=4294967295 uid=0 gid=0 comm="sh" exe="/usr/bin/dash" key=(null)"#
    )
    static let end = AuditRecord(type: 1320, text: "audit(1796176746.668:3): ")

    @Test func aRecordIsReadWithItsSerialAndFields() throws {
        let denial = try #require(Self.denial)
        #expect(denial.kind == .landlockAccess)
        #expect(denial.serial == 3)
        #expect(denial.fields["domain"] == "12e73e561")
        #expect(denial.fields["blockers"] == "fs.make_reg")
        #expect(denial.fields["path"] == "/tmp")
        #expect(Self.syscall?.fields["comm"] == "sh")
        #expect(Self.syscall?.fields["key"] == "(null)")
    }

    /// Untrusted strings with a space, a quote or a control character come in hex.
    @Test func aPathInHexIsDecoded() throws {
        let record = try #require(
            AuditRecord(
                type: 1423, text: "audit(1.000:9): domain=1 blockers=fs.write_file path=2F746D702F61206222 dev=\"vda\"")
        )
        #expect(record.fields["path"] == "/tmp/a b\"")
    }

    @Test func recordsThisRunnerDoesNotReadAreLeftOut() {
        #expect(AuditRecord(type: 1327, text: "audit(1.000:9): proctitle=7368") == nil)
        #expect(AuditRecord(type: 1423, text: "not a record") == nil)
        #expect(AuditRecord(type: 1423, text: "audit(1.000:x): domain=1") == nil)
    }

    @Test func aUserRecordCarriesItsMessage() throws {
        let record = try #require(
            AuditRecord(
                type: 1005, text: "audit(1.5:25): pid=22592 uid=0 auid=4294967295 ses=4294967295 msg='sdlab settle 1 A'"
            ))
        #expect(record.kind == .user)
        #expect(record.message == "sdlab settle 1 A")
    }

    /// A refusal is whole at its event's end: the folder, the call and who made it, and the
    /// process that made the domain (the fence, which became the app).
    @Test func anEventBecomesOneRefusalAtItsEnd() throws {
        var reading = LandlockRefusalReading()
        let records = try [Self.denial, Self.domain, Self.syscall].map { try #require($0) }
        for record in records { #expect(reading.read(record).isEmpty) }
        let refusals = reading.read(try #require(Self.end))
        #expect(
            refusals == [
                LandlockRefusal(
                    domain: "12e73e561", blockers: ["fs.make_reg"], path: "/tmp", syscall: 257, pid: 17954,
                    command: "sh",
                    owner: 17953)
            ])
        #expect(reading.flush().isEmpty)
    }

    /// A domain is said to be allocated once, at its first refusal; later refusals of it are
    /// the same app's. One whose event has not ended by a barrier is given as it stands.
    @Test func aLaterRefusalOfADomainIsItsOwnersAndABarrierFlushes() throws {
        var reading = LandlockRefusalReading()
        for record in try [Self.denial, Self.domain, Self.syscall, Self.end].map({ try #require($0) }) {
            _ = reading.read(record)
        }
        let later = try #require(
            AuditRecord(
                type: 1423, text: #"audit(1796176747.000:8): domain=12e73e561 blockers=fs.make_dir path="/var/tmp""#))
        #expect(reading.read(later).isEmpty)
        let flushed = reading.flush()
        #expect(flushed.count == 1)
        #expect(flushed.first?.owner == 17953)
        #expect(flushed.first?.blockers == ["fs.make_dir"])
        #expect(flushed.first?.syscall == nil)
    }

    /// A domain no record said was allocated (another sandbox's) has no owner.
    @Test func aStrangersDomainHasNoOwner() throws {
        var reading = LandlockRefusalReading()
        let record = try #require(
            AuditRecord(type: 1423, text: #"audit(2.000:4): domain=77 blockers=fs.write_file path="/etc/x""#))
        _ = reading.read(record)
        let refusals = reading.read(try #require(AuditRecord(type: 1320, text: "audit(2.000:4): ")))
        #expect(refusals.count == 1)
        #expect(refusals.first?.owner == nil)
    }
}
