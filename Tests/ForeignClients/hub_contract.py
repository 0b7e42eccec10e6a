#!/usr/bin/python3
"""The hub's D-Bus contract (Docs/behaviour.md §1–§3, the contract in Bus/) as a foreign client sees it.

Run with the system Python, which has python3-dbus and python3-gi:

    DBUS_SESSION_BUS_ADDRESS=... /usr/bin/python3 hub_contract.py PROFILE

It talks to `dev.sdlab.Hub` at `/dev/sdlab/Hub` on the device bus with python-dbus only,
so it proves that any D-Bus client can use the device. PROFILE says how the device was
set up:

  default                     a fresh device with the default users (`stage`, `cou1`,
                              `cou2`, each password equal to the name): every method,
                              property, error name and post of the contract in Bus/ in one story
                              (enroll, check-outs, lock and unlock, offline, broker sign-in
                              and sign-out, tokens, user info, wipe, re-enroll), the live
                              introspection against the contract in Bus/ and the XML in Bus/, a foreign
                              post, and bad calls that get error replies while the hub keeps
                              serving.
  single-user                 users `solo` (staging, single-user) and `cou1`: the device
                              enrolled by `solo` is personal and refuses check-in and
                              global sign-out (NotShared).
  passcode-and-sign-in-posts  the default users with the passcode policy and posts on
                              sign-in: a check-out posts, and the broker reports the
                              passcode policy and whether the session's user set one.

Prints one line per check (`ok WHAT` or `FAIL WHAT: expected X got Y`); exits 0 only if
every check held, 1 otherwise (2 for bad usage). Every wait is bounded: calls time out,
and posts are awaited on a GLib main loop with a GLib timeout as the bound.
"""

import os
import sys
import time
import xml.etree.ElementTree as ElementTree

import dbus
import dbus.bus
import dbus.lowlevel
import dbus.mainloop.glib
from gi.repository import GLib

HUB_NAME = "dev.sdlab.Hub"
HUB_PATH = "/dev/sdlab/Hub"
NOTIFY_PATH = "/dev/sdlab/Notify"
HUB1 = "dev.sdlab.Hub1"
BROKER1 = "dev.sdlab.Broker1"
NOTIFY1 = "dev.sdlab.Notify1"
KEY_SERVICE1 = "dev.sdlab.KeyService1"
PROPERTIES = "org.freedesktop.DBus.Properties"
INTROSPECTABLE = "org.freedesktop.DBus.Introspectable"
ACCOUNT_CHANGED = "SHARED_MODE_CURRENT_ACCOUNT_CHANGED"


def device_error(name):
    return "dev.sdlab.Error." + name


def standard_error(name):
    return "org.freedesktop.DBus.Error." + name


CALL_TIMEOUT_S = 10
POST_WAIT_S = 5
QUIET_S = 0.3
ONE_MIB = 1 << 20
DOMAIN = "sdlab.test"
CLIENT = "dev.sdlab.ForeignClient"

# the contract in Bus/, member by member: (arguments in, arguments out).
CONTRACT_METHODS = {
    HUB1: {
        "Enroll": ("ss", ""), "CheckOut": ("ss", "s"), "CheckIn": ("", ""), "GetSession": ("", "(sst)"),
        "GetUserInfo": ("", "a{sv}"), "SetOnline": ("b", ""), "Lock": ("", ""), "Unlock": ("ss", ""),
        "EnterpriseWipe": ("", ""),
    },
    BROKER1: {
        "GetDeviceInformation": ("", "a{sv}"), "GetAccounts": ("", "aa{sv}"), "SignIn": ("sss", "a{sv}"),
        "SignOut": ("ss", ""), "AcquireTokenSilent": ("ss", "(st)"),
    },
    NOTIFY1: {"SetState": ("st", ""), "GetState": ("s", "t"), "Register": ("s", ""), "Cancel": ("s", "")},
}
CONTRACT_PROPERTIES = {"State": "s", "Shared": "b", "Online": "b", "Locked": "b", "Generation": "t", "Foreground": "s"}
DBUS_TYPES = {dbus.String: "s", dbus.Boolean: "b", dbus.UInt64: "t", dbus.Int32: "i", dbus.ObjectPath: "o"}


def plain(value):
    """A D-Bus value as plain Python, for messages."""
    if isinstance(value, (bool, dbus.Boolean)):
        return bool(value)
    if isinstance(value, (dbus.String, dbus.ObjectPath)):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, dict):
        return {plain(key): plain(item) for key, item in value.items()}
    if isinstance(value, tuple):
        return tuple(plain(item) for item in value)
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


def type_code(value):
    """The D-Bus type a python-dbus value came as (`s`, `b`, `t`, …), or its class name."""
    return DBUS_TYPES.get(type(value), type(value).__name__)


def shown(value):
    text = repr(plain(value))
    return text if len(text) <= 200 else text[:200] + "…"


class Report:
    """One line per check; remembers whether any failed."""

    def __init__(self):
        self.failures = 0

    def check(self, what, expected, got):
        if expected == got:
            print("ok " + what, flush=True)
        else:
            self.fail(what, shown(expected), shown(got))
        return expected == got

    def holds(self, what, condition, expected, got):
        if condition:
            print("ok " + what, flush=True)
        else:
            self.fail(what, expected, shown(got))
        return condition

    def fail(self, what, expected, got):
        self.failures += 1
        print(f"FAIL {what}: expected {expected} got {got}", flush=True)


class CallFailed(Exception):
    """A reply that was an error where a value was expected (already reported)."""


class Device:
    """The hub on the device bus, called through python-dbus, with a check per call."""

    def __init__(self, bus, report):
        self.bus = bus
        self.report = report

    # Raw calls -----------------------------------------------------------------------

    def call(self, interface, member, signature="", *args, path=HUB_PATH):
        """The reply's value (None for no value, a tuple for several); raises DBusException."""
        return self.bus.call_blocking(HUB_NAME, path, interface, member, signature, args,
                                      timeout=CALL_TIMEOUT_S)

    def reply(self, what, interface, member, signature="", *args, path=HUB_PATH):
        """The reply of a call that must succeed; a failure is reported and raises CallFailed."""
        try:
            return self.call(interface, member, signature, *args, path=path)
        except dbus.exceptions.DBusException as error:
            self.report.fail(what, "a reply", f"{error.get_dbus_name()}: {error.get_dbus_message()}")
            raise CallFailed(what) from error

    def succeeds(self, what, interface, member, signature="", *args):
        try:
            value = self.call(interface, member, signature, *args)
        except dbus.exceptions.DBusException as error:
            self.report.fail(what, "a reply", f"{error.get_dbus_name()}: {error.get_dbus_message()}")
            return None
        print("ok " + what, flush=True)
        return value

    def fails(self, what, error_name, interface, member, signature="", *args, path=HUB_PATH):
        """Checks that a call gets the error reply `error_name`."""
        try:
            value = self.call(interface, member, signature, *args, path=path)
        except dbus.exceptions.DBusException as error:
            return self.report.check(what, error_name, error.get_dbus_name())
        self.report.fail(what, error_name, f"a reply {shown(value)}")
        return False

    # The contract's calls --------------------------------------------------------------

    def session(self):
        return plain(self.reply("GetSession answers", HUB1, "GetSession"))

    def generation(self):
        return self.session()[2]

    def notify_state(self, name=ACCOUNT_CHANGED):
        return plain(self.reply(f"GetState({name!r}) answers", NOTIFY1, "GetState", "s", name))

    def prop(self, name):
        return self.reply(f"Get {name} answers", PROPERTIES, "Get", "ss", HUB1, name)

    def device_information(self):
        return self.reply("GetDeviceInformation answers", BROKER1, "GetDeviceInformation")

    def accounts(self):
        return plain(self.reply("GetAccounts answers", BROKER1, "GetAccounts"))

    # Checks of state ------------------------------------------------------------------

    def expect_session(self, what, state, user, generation):
        return self.report.check(what + ": GetSession", (state, user, generation), self.session())

    def expect_properties(self, what, **expected):
        """Each named Hub1 property, by Get, with its value and D-Bus type."""
        for name, value in expected.items():
            got = self.prop(name)
            self.report.check(f"{what}: {name}", (value, CONTRACT_PROPERTIES[name]), (plain(got), type_code(got)))

    def expect_device_information(self, what, **expected):
        information = self.device_information()
        for key, value in expected.items():
            got = information.get(key)
            self.report.check(f"{what}: device information {key}", value, plain(got))

    def expect_accounts(self, what, users):
        expected = [account_of(user) for user in users]
        self.report.check(what + ": GetAccounts", expected, self.accounts())


def account_of(user):
    """The broker's account dictionary for a user (the contract in Bus/)."""
    return {"homeAccountId": home_account(user), "username": user, "environment": "login.sdlab.test"}


def home_account(user):
    return user + ".sdlab-tenant"


def user_info_of(user):
    return {"userName": user, "groupID": "frontline", "email": f"{user}@{DOMAIN}", "firstName": user,
            "lastName": "", "domain": DOMAIN, "userIdentifier": f"{DOMAIN}/{user}"}


class PostWatcher:
    """Receives `Posted` signals subscribed with arg0 = SHARED_MODE_CURRENT_ACCOUNT_CHANGED and
    records, for each, who sent it, what it carried and the notify state read on receipt."""

    def __init__(self, device):
        self.device = device
        self.posts = []
        self.loop = None
        self.done = None
        device.bus.add_signal_receiver(
            self.on_post, signal_name="Posted", dbus_interface=NOTIFY1, path=NOTIFY_PATH, arg0=ACCOUNT_CHANGED,
            sender_keyword="sender", message_keyword="message")

    def on_post(self, *args, sender=None, message=None):
        try:
            state = plain(self.device.call(NOTIFY1, "GetState", "s", ACCOUNT_CHANGED))
        except dbus.exceptions.DBusException as error:
            state = f"GetState failed: {error.get_dbus_name()}"
        self.posts.append({"sender": str(sender), "args": plain(list(args)), "signature": message.get_signature(),
                           "path": message.get_path(), "state": state})
        if self.loop is not None and self.done():
            self.loop.quit()

    def run_until(self, done, seconds):
        """Runs the main loop until done() holds or `seconds` have passed."""
        if done():
            return
        self.loop, self.done = GLib.MainLoop(), done
        timed_out = []

        def on_timeout():
            timed_out.append(True)
            self.loop.quit()
            return False

        timer = GLib.timeout_add(int(seconds * 1000), on_timeout)
        self.loop.run()
        if not timed_out:
            GLib.source_remove(timer)
        self.loop = None

    def start(self):
        """Forgets posts so far, after delivering any already queued."""
        context = GLib.MainContext.default()
        for _ in range(1000):
            if not context.iteration(False):
                break
        self.posts.clear()

    def wait_for(self, count, seconds):
        self.run_until(lambda: len(self.posts) >= count, seconds)
        return self.posts

    def quiet_period(self):
        """A short bounded wait, only to see that no (further) post comes."""
        known = len(self.posts)
        self.run_until(lambda: len(self.posts) > known, QUIET_S)
        return self.posts


class Contract:
    """The checks, shared by the profiles."""

    def __init__(self, device, report):
        self.device = device
        self.report = report
        self.watcher = PostWatcher(device)
        self.hub_owner = str(device.bus.get_name_owner(HUB_NAME))

    def still_serves(self, after):
        """After bad input the hub must still answer."""
        try:
            session = plain(self.device.call(HUB1, "GetSession"))
        except dbus.exceptions.DBusException as error:
            self.report.fail(f"GetSession answers after {after}", "a reply", error.get_dbus_name())
            return
        self.report.holds(f"GetSession answers after {after}", len(session) == 3, "(state, user, generation)", session)
        self.report.check(f"the same hub serves after {after}", self.hub_owner,
                          str(self.device.bus.get_name_owner(HUB_NAME)))

    def posts_once(self, what, action, generation):
        """`action` makes the broker post exactly once, from the hub, after setting the notify
        state to `generation`."""
        self.watcher.start()
        action()
        posts = self.watcher.wait_for(1, POST_WAIT_S)
        if not self.report.holds(f"{what} posts {ACCOUNT_CHANGED}", len(posts) >= 1,
                                 f"a post within {POST_WAIT_S} s", "none"):
            return
        post = posts[0]
        self.report.check(f"{what}: the post comes from the hub", self.hub_owner, post["sender"])
        self.report.check(f"{what}: the post carries only the name", (NOTIFY_PATH, "s", [ACCOUNT_CHANGED]),
                          (post["path"], post["signature"], post["args"]))
        self.report.check(f"{what}: GetState on receipt is the new generation", generation, post["state"])
        self.report.check(f"{what} posts exactly once", 1, len(self.watcher.quiet_period()))

    def posts_nothing(self, what, action):
        """`action` makes no post of SHARED_MODE_CURRENT_ACCOUNT_CHANGED (a bounded wait)."""
        self.watcher.start()
        action()
        posts = self.watcher.quiet_period()
        self.report.check(f"{what} does not post", [], [post["args"] for post in posts])


# Introspection ---------------------------------------------------------------------------

def members(interface_element):
    """An introspected interface as comparable data: methods, signals, properties."""
    def arguments(element, default_direction):
        return tuple((arg.get("name"), arg.get("type"), arg.get("direction", default_direction))
                     for arg in element.findall("arg"))
    return {
        "methods": {m.get("name"): arguments(m, "in") for m in interface_element.findall("method")},
        "signals": {s.get("name"): arguments(s, "out") for s in interface_element.findall("signal")},
        "properties": {p.get("name"): (p.get("type"), p.get("access")) for p in interface_element.findall("property")},
    }


def interfaces_in(xml_text):
    return {element.get("name"): members(element) for element in ElementTree.fromstring(xml_text).findall("interface")}


def signature_of(arguments, direction):
    return "".join(kind for _, kind, way in arguments if way == direction)


def check_introspection_against_spec(contract, live):
    report = contract.report
    for interface in (INTROSPECTABLE, PROPERTIES, HUB1, BROKER1, KEY_SERVICE1, NOTIFY1):
        report.holds(f"Introspect lists {interface}", interface in live, "present", sorted(live))
    for interface, methods in CONTRACT_METHODS.items():
        found = live.get(interface, {}).get("methods", {})
        for name, (inputs, outputs) in methods.items():
            arguments = found.get(name)
            got = None if arguments is None else (signature_of(arguments, "in"), signature_of(arguments, "out"))
            report.check(f"Introspect: {interface}.{name} takes ({inputs}) and returns ({outputs})",
                         (inputs, outputs), got)
    hub1 = live.get(HUB1, {})
    report.check("Introspect: Hub1 has no signals", {}, hub1.get("signals"))
    report.check("Introspect: Hub1 properties and their types, all read-only",
                 {name: (kind, "read") for name, kind in CONTRACT_PROPERTIES.items()}, hub1.get("properties"))
    report.check("Introspect: Notify1 has the signal Posted(s)", [("s", "out")],
                 [(kind, way) for _, kind, way in live.get(NOTIFY1, {}).get("signals", {}).get("Posted", ())])


def check_introspection_against_bus_folder(contract, live):
    """the contract in Bus/: the interface XML in Bus/ matches what the live object returns."""
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Bus")
    documented = {}
    for file in sorted(os.listdir(folder)) if os.path.isdir(folder) else []:
        if file.endswith(".xml"):
            with open(os.path.join(folder, file), encoding="utf-8") as handle:
                documented.update(interfaces_in(handle.read()))
    ours = sorted(name for name in live if name.startswith("dev.sdlab."))
    # dev.sdlab.App1 lives on each app's object, not on the hub's.
    hub_documented = sorted(name for name in documented if not name.startswith("dev.sdlab.App"))
    contract.report.check("Bus/ documents exactly the live dev.sdlab interfaces", ours, hub_documented)
    for name in ours:
        contract.report.check(f"Bus/ XML of {name} matches the live Introspect", documented.get(name), live[name])


def check_introspection(contract):
    xml_text = contract.device.reply("Introspect answers", INTROSPECTABLE, "Introspect")
    live = interfaces_in(str(xml_text))
    check_introspection_against_spec(contract, live)
    check_introspection_against_bus_folder(contract, live)


# The default story -------------------------------------------------------------------------

def fresh_device(contract):
    device = contract.device
    device.expect_session("fresh device", "unenrolled", "", 0)
    device.expect_properties("fresh device", State="unenrolled", Shared=False, Online=True, Locked=False,
                             Generation=0, Foreground="app")
    every = device.reply("GetAll answers", PROPERTIES, "GetAll", "s", HUB1)
    contract.report.check("GetAll(Hub1) gives every property with its type",
                          {"State": ("unenrolled", "s"), "Shared": (False, "b"), "Online": (True, "b"),
                           "Locked": (False, "b"), "Generation": (0, "t"), "Foreground": ("app", "s")},
                          {name: (plain(value), type_code(value)) for name, value in every.items()})
    information = device.device_information()
    contract.report.check("fresh device: device information and its types",
                          {"deviceMode": ("personal", "s"), "generation": (0, "t"), "passcodePolicy": (False, "b"),
                           "passcodeSet": (False, "b")},
                          {key: (plain(information.get(key)), type_code(information.get(key)))
                           for key in ("deviceMode", "generation", "passcodePolicy", "passcodeSet")})
    device.expect_accounts("fresh device", [])
    contract.report.check("fresh device: GetState of a name never set", 0, device.notify_state("never.set"))
    contract.report.check(f"fresh device: GetState({ACCOUNT_CHANGED})", 0, device.notify_state())


def unenrolled_refusals(contract):
    device = contract.device
    device.fails("unenrolled: GetUserInfo", device_error("NotCheckedOut"), HUB1, "GetUserInfo")
    device.fails("unenrolled: CheckIn", device_error("NotCheckedOut"), HUB1, "CheckIn")
    device.fails("unenrolled: CheckOut with valid credentials", device_error("NotEnrolled"), HUB1, "CheckOut", "ss",
                 "cou1", "cou1")
    device.fails("unenrolled: CheckOut with a wrong password (BadCredentials before NotEnrolled)",
                 device_error("BadCredentials"), HUB1, "CheckOut", "ss", "cou1", "wrong")
    device.fails("unenrolled: SignIn", device_error("NotEnrolled"), BROKER1, "SignIn", "sss", "cou1", "cou1", CLIENT)
    device.fails("unenrolled: SignOut", device_error("NoCurrentAccount"), BROKER1, "SignOut", "ss",
                 home_account("cou1"), CLIENT)
    device.fails("unenrolled: AcquireTokenSilent", device_error("NoCurrentAccount"), BROKER1, "AcquireTokenSilent",
                 "ss", home_account("cou1"), CLIENT)
    device.fails("unenrolled: EnterpriseWipe", device_error("NotEnrolled"), HUB1, "EnterpriseWipe")
    device.succeeds("SetOnline(false)", HUB1, "SetOnline", "b", False)
    device.fails("unenrolled and offline: CheckOut with a wrong password (Offline first)", device_error("Offline"),
                 HUB1, "CheckOut", "ss", "cou1", "wrong")
    device.succeeds("SetOnline(true)", HUB1, "SetOnline", "b", True)
    device.expect_session("after refusals", "unenrolled", "", 0)


def enrollment(contract):
    device = contract.device
    device.fails("Enroll with an unknown user", device_error("BadCredentials"), HUB1, "Enroll", "ss", "nobody", "nobody")
    device.fails("Enroll with a wrong password", device_error("BadCredentials"), HUB1, "Enroll", "ss", "stage", "wrong")
    device.fails("Enroll by a user who is not staging", device_error("NotStagingUser"), HUB1, "Enroll", "ss",
                 "cou1", "cou1")
    device.succeeds("Enroll by the staging user", HUB1, "Enroll", "ss", "stage", "stage")
    device.expect_session("enrolled", "checked-in", "", 0)
    device.expect_properties("enrolled", State="checked-in", Shared=True, Generation=0)
    device.expect_device_information("enrolled", deviceMode="shared", generation=0)
    device.fails("Enroll again", device_error("AlreadyEnrolled"), HUB1, "Enroll", "ss", "stage", "stage")
    device.fails("Enroll again by a user who is not staging (NotStagingUser before AlreadyEnrolled)",
                 device_error("NotStagingUser"), HUB1, "Enroll", "ss", "cou1", "cou1")
    device.fails("Enroll again with a wrong password", device_error("BadCredentials"), HUB1, "Enroll", "ss",
                 "stage", "wrong")


def check_out(contract, user, password, what):
    """Checks out with no post; returns the new generation."""
    device = contract.device
    before = device.generation()
    state_before = device.notify_state()
    identifiers = []
    contract.posts_nothing(what, lambda: identifiers.append(
        device.succeeds(what, HUB1, "CheckOut", "ss", user, password)))
    contract.report.check(f"{what} returns the user identifier", f"{DOMAIN}/{user}", plain(identifiers[0]))
    contract.report.check(f"{what} leaves the notify state alone", state_before, device.notify_state())
    device.expect_session(what, "checked-out", user, before + 1)
    return before + 1


def checked_out_story(contract):
    device = contract.device
    generation = check_out(contract, "cou1", "cou1", "CheckOut cou1")
    device.expect_properties("checked out", State="checked-out", Generation=generation)
    device.expect_device_information("checked out", generation=generation)
    info = device.reply("GetUserInfo answers", HUB1, "GetUserInfo")
    contract.report.check("GetUserInfo of cou1", user_info_of("cou1"), plain(info))
    contract.report.check("GetUserInfo values are strings", {"s"}, {type_code(value) for value in info.values()})
    device.expect_accounts("checked out", ["cou1"])
    device.fails("CheckOut while checked out", device_error("AlreadyCheckedOut"), HUB1, "CheckOut", "ss",
                 "cou2", "cou2")
    device.fails("CheckOut while checked out with a wrong password (BadCredentials first)",
                 device_error("BadCredentials"), HUB1, "CheckOut", "ss", "cou2", "wrong")
    device.fails("SignIn while signed in with a wrong password (AlreadySignedIn first)",
                 device_error("AlreadySignedIn"), BROKER1, "SignIn", "sss", "cou2", "wrong", CLIENT)
    tokens(contract, "cou1")


def tokens(contract, user):
    device = contract.device
    token = device.reply("AcquireTokenSilent answers", BROKER1, "AcquireTokenSilent", "ss", home_account(user), CLIENT)
    value, expiry = plain(token)
    contract.report.holds("AcquireTokenSilent gives a token", isinstance(value, str) and value != "",
                          "a non-empty string", value)
    contract.report.check("the token's types", ("s", "t"), (type_code(token[0]), type_code(token[1])))
    ahead = expiry - time.time()
    contract.report.holds("the token expires about an hour ahead", 3300 <= ahead <= 3900, "3600 ± 300 s", ahead)
    device.fails("AcquireTokenSilent for another account", device_error("AccountMismatch"), BROKER1,
                 "AcquireTokenSilent", "ss", home_account("cou2" if user != "cou2" else "cou1"), CLIENT)
    device.fails("SignOut of another account", device_error("AccountMismatch"), BROKER1, "SignOut", "ss",
                 home_account("cou2" if user != "cou2" else "cou1"), CLIENT)
    return value


def lock_and_unlock(contract, user):
    device = contract.device
    contract.posts_nothing("Lock", lambda: device.succeeds("Lock", HUB1, "Lock"))
    device.expect_properties("locked", Locked=True)
    device.fails("CheckIn while locked", device_error("Locked"), HUB1, "CheckIn")
    other = "cou2" if user != "cou2" else "cou1"
    device.fails("Unlock by another valid user while checked out", device_error("BadCredentials"), HUB1, "Unlock",
                 "ss", other, other)
    device.fails("Unlock with a wrong password", device_error("BadCredentials"), HUB1, "Unlock", "ss", user, "wrong")
    device.expect_properties("after refused unlocks", Locked=True)
    device.succeeds("Unlock by the checked-out user", HUB1, "Unlock", "ss", user, user)
    device.expect_properties("unlocked online", Locked=False, Foreground="app")


def check_in(contract, what="CheckIn"):
    device = contract.device
    generation = device.generation() + 1
    contract.posts_once(what, lambda: device.succeeds(what, HUB1, "CheckIn"), generation)
    contract.report.check(f"after {what}: notify state", generation, device.notify_state())
    device.expect_session(f"after {what}", "checked-in", "", generation)
    return generation


def checked_in_story(contract):
    device = contract.device
    check_in(contract)
    device.fails("GetUserInfo when checked in", device_error("NotCheckedOut"), HUB1, "GetUserInfo")
    device.expect_accounts("checked in", [])
    device.fails("AcquireTokenSilent after the check-in", device_error("NoCurrentAccount"), BROKER1,
                 "AcquireTokenSilent", "ss", home_account("cou1"), CLIENT)
    device.fails("SignOut with no account", device_error("NoCurrentAccount"), BROKER1, "SignOut", "ss",
                 home_account("cou1"), CLIENT)
    device.fails("CheckIn when checked in", device_error("NotCheckedOut"), HUB1, "CheckIn")


def offline_story(contract):
    device = contract.device
    generation = device.generation()
    contract.posts_nothing("SetOnline(false)", lambda: device.succeeds("SetOnline(false)", HUB1, "SetOnline", "b", False))
    device.expect_properties("offline", Online=False)
    device.fails("CheckOut offline", device_error("Offline"), HUB1, "CheckOut", "ss", "cou1", "cou1")
    device.fails("CheckOut offline with a wrong password (Offline first)", device_error("Offline"), HUB1, "CheckOut",
                 "ss", "cou1", "wrong")
    device.fails("SignIn offline with a wrong password (BadCredentials first)", device_error("BadCredentials"),
                 BROKER1, "SignIn", "sss", "cou1", "wrong", CLIENT)
    device.fails("SignIn offline", device_error("Offline"), BROKER1, "SignIn", "sss", "cou1", "cou1", CLIENT)
    device.succeeds("Lock while checked in", HUB1, "Lock")
    device.fails("CheckIn while locked and checked in (Locked first)", device_error("Locked"), HUB1, "CheckIn")
    device.fails("Unlock by an unknown user", device_error("BadCredentials"), HUB1, "Unlock", "ss", "nobody", "nobody")
    device.succeeds("Unlock by any valid user while checked in", HUB1, "Unlock", "ss", "cou2", "cou2")
    device.expect_properties("unlocked offline and checked in", Locked=False, Foreground="hub")
    device.succeeds("SetOnline(true)", HUB1, "SetOnline", "b", True)
    device.expect_properties("online again", Online=True)
    device.expect_session("after the offline refusals", "checked-in", "", generation)


def sign_in(contract, user, what):
    """A global sign-in through the broker, with no post; returns the new generation."""
    device = contract.device
    before = device.generation()
    accounts = []
    contract.posts_nothing(what, lambda: accounts.append(
        device.succeeds(what, BROKER1, "SignIn", "sss", user, user, CLIENT)))
    contract.report.check(f"{what} returns the account", account_of(user), plain(accounts[0]))
    device.expect_session(what, "checked-out", user, before + 1)
    return before + 1


def broker_story(contract):
    device = contract.device
    sign_in(contract, "cou2", "SignIn cou2")
    device.expect_accounts("signed in", ["cou2"])
    contract.report.check("GetUserInfo after a sign-in", user_info_of("cou2"),
                          plain(device.reply("GetUserInfo answers", HUB1, "GetUserInfo")))
    first_token = tokens(contract, "cou2")
    device.fails("SignIn while signed in", device_error("AlreadySignedIn"), BROKER1, "SignIn", "sss", "cou1", "cou1",
                 CLIENT)
    device.succeeds("SetOnline(false) while checked out", HUB1, "SetOnline", "b", False)
    device.succeeds("Lock while checked out", HUB1, "Lock")
    device.succeeds("Unlock offline by the checked-out user", HUB1, "Unlock", "ss", "cou2", "cou2")
    device.expect_properties("unlocked offline and checked out", Locked=False, Foreground="app")
    device.succeeds("SetOnline(true)", HUB1, "SetOnline", "b", True)
    generation = device.generation() + 1
    contract.posts_once("SignOut", lambda: device.succeeds(
        "SignOut cou2", BROKER1, "SignOut", "ss", home_account("cou2"), "dev.sdlab.OtherClient"), generation)
    device.expect_session("after SignOut", "checked-in", "", generation)
    device.expect_accounts("signed out", [])
    device.fails("AcquireTokenSilent after the sign-out", device_error("NoCurrentAccount"), BROKER1,
                 "AcquireTokenSilent", "ss", home_account("cou2"), CLIENT)
    device.fails("SignOut again", device_error("NoCurrentAccount"), BROKER1, "SignOut", "ss", home_account("cou2"),
                 CLIENT)
    sign_in(contract, "cou2", "SignIn cou2 again")
    second_token = tokens(contract, "cou2")
    contract.report.holds("a new session gives a new token", first_token != second_token, "a different token",
                          second_token)
    check_in(contract, "CheckIn after a broker sign-in")


def remove_account_story(contract):
    """`remove-account` ends the session without a post (Docs/behaviour.md §2)."""
    device = contract.device
    device.fails("RemoveAccount with no account", device_error("NoCurrentAccount"), BROKER1, "RemoveAccount")
    generation = check_out(contract, "cou1", "cou1", "CheckOut cou1 before RemoveAccount")
    state_before = device.notify_state()
    contract.posts_nothing("RemoveAccount", lambda: device.succeeds("RemoveAccount", BROKER1, "RemoveAccount"))
    contract.report.check("RemoveAccount leaves the notify state alone", state_before, device.notify_state())
    device.expect_session("after RemoveAccount", "checked-in", "", generation + 1)
    device.expect_accounts("after RemoveAccount", [])


def key_service_story(contract):
    """The off-device key service of `external` records: the checked-out user's key only."""
    device = contract.device
    device.fails("GetUserKey when checked in", device_error("NotCheckedOut"), KEY_SERVICE1, "GetUserKey")
    check_out(contract, "cou1", "cou1", "CheckOut cou1 before GetUserKey")
    user, key = device.reply("GetUserKey for cou1", KEY_SERVICE1, "GetUserKey")
    contract.report.check("GetUserKey names the checked-out user", "cou1", str(user))
    contract.report.check("a user key has 32 bytes", 32, len(key))
    contract.report.check("the same user gets the same key", bytes(key),
                          bytes(device.reply("GetUserKey again", KEY_SERVICE1, "GetUserKey")[1]))
    device.succeeds("SetOnline false", HUB1, "SetOnline", "b", False)
    device.fails("GetUserKey offline", device_error("Offline"), KEY_SERVICE1, "GetUserKey")
    device.succeeds("SetOnline true", HUB1, "SetOnline", "b", True)
    check_in(contract, "CheckIn after GetUserKey")
    check_out(contract, "cou2", "cou2", "CheckOut cou2 for GetUserKey")
    other = device.reply("GetUserKey for cou2", KEY_SERVICE1, "GetUserKey")[1]
    contract.report.holds("another user gets another key", bytes(other) != bytes(key), "a different key", "the same")
    check_in(contract, "CheckIn after cou2's key")


def wipe_story(contract):
    device = contract.device
    check_out(contract, "cou2", "cou2", "CheckOut cou2 before the wipe")
    generation = device.generation() + 1
    contract.posts_once("EnterpriseWipe of a checked-out device",
                        lambda: device.succeeds("EnterpriseWipe", HUB1, "EnterpriseWipe"), generation)
    device.expect_session("wiped", "unenrolled", "", generation)
    device.expect_properties("wiped", State="unenrolled", Shared=False, Locked=False, Generation=generation)
    device.expect_device_information("wiped", deviceMode="personal", generation=generation)
    device.expect_accounts("wiped", [])
    device.fails("CheckOut after the wipe", device_error("NotEnrolled"), HUB1, "CheckOut", "ss", "cou1", "cou1")
    device.fails("EnterpriseWipe when unenrolled", device_error("NotEnrolled"), HUB1, "EnterpriseWipe")
    device.succeeds("Enroll again after the wipe", HUB1, "Enroll", "ss", "stage", "stage")
    device.expect_session("re-enrolled", "checked-in", "", generation)
    device.expect_properties("re-enrolled", Shared=True)
    device.succeeds("EnterpriseWipe of a checked-in device", HUB1, "EnterpriseWipe")
    device.expect_session("wiped while checked in (no session change)", "unenrolled", "", generation)
    device.succeeds("Enroll once more", HUB1, "Enroll", "ss", "stage", "stage")
    check_out(contract, "stage", "stage", "CheckOut by the staging user")
    check_in(contract, "CheckIn of the staging user")


def foreign_post(contract):
    """Names are not protected: a post from any client reaches subscribers and changes nothing."""
    device = contract.device
    session, state = device.session(), device.notify_state()
    spoofer = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
    signal = dbus.lowlevel.SignalMessage(NOTIFY_PATH, NOTIFY1, "Posted")
    signal.append(ACCOUNT_CHANGED, signature="s")
    contract.watcher.start()
    spoofer.send_message(signal)
    spoofer.flush()
    posts = contract.watcher.wait_for(1, POST_WAIT_S)
    contract.report.check("a foreign post reaches a subscriber", [(spoofer.get_unique_name(), [ACCOUNT_CHANGED])],
                          [(post["sender"], post["args"]) for post in posts])
    contract.report.check("a foreign post changes no session", session, device.session())
    contract.report.check("a foreign post changes no notify state", state, device.notify_state())
    spoofer.close()


def notify_state(contract):
    """A state lives while some client holds a registration for its name (notifyutil -s NAME 42
    -g NAME prints 0); this client holds its registrations until it cancels them or leaves."""
    device = contract.device
    device.succeeds("SetState(custom, 42) with nobody holding it", NOTIFY1, "SetState", "st", "custom.name", 42)
    contract.report.check("GetState(custom): not kept", 0, device.notify_state("custom.name"))
    device.succeeds("Register(custom)", NOTIFY1, "Register", "s", "custom.name")
    device.succeeds("SetState(custom, 42) while held", NOTIFY1, "SetState", "st", "custom.name", 42)
    contract.report.check("GetState(custom) after SetState", 42, device.notify_state("custom.name"))
    device.succeeds("Register with a 511-byte name", NOTIFY1, "Register", "s", "n" * 511)
    device.succeeds("SetState with a 511-byte name", NOTIFY1, "SetState", "st", "n" * 511, 7)
    contract.report.check("GetState with a 511-byte name", 7, device.notify_state("n" * 511))
    device.succeeds("Cancel(custom)", NOTIFY1, "Cancel", "s", "custom.name")
    contract.report.check("GetState(custom) after its last Cancel", 0, device.notify_state("custom.name"))
    device.succeeds("Cancel of a name not held", NOTIFY1, "Cancel", "s", "never.held")


# Bad input -------------------------------------------------------------------------------

def bad_calls():
    """(what, expected error, interface, member, signature, arguments, path)."""
    huge = "u" * ONE_MIB
    return [
        ("an unknown method", standard_error("UnknownMethod"), HUB1, "NoSuchMethod", "", (), HUB_PATH),
        ("an unknown interface", standard_error("UnknownInterface"), "dev.sdlab.NoSuch1", "GetSession", "", (),
         HUB_PATH),
        ("an unknown object", standard_error("UnknownObject"), HUB1, "GetSession", "", (), "/dev/sdlab/NoSuch"),
        ("CheckOut with an int", standard_error("InvalidArgs"), HUB1, "CheckOut", "i", (7,), HUB_PATH),
        ("CheckOut with too few arguments", standard_error("InvalidArgs"), HUB1, "CheckOut", "s", ("cou1",), HUB_PATH),
        ("GetSession with an extra argument", standard_error("InvalidArgs"), HUB1, "GetSession", "s", ("x",),
         HUB_PATH),
        ("SetOnline with a string", standard_error("InvalidArgs"), HUB1, "SetOnline", "s", ("yes",), HUB_PATH),
        ("SetState with a negative int32", standard_error("InvalidArgs"), NOTIFY1, "SetState", "si", ("x", -1),
         HUB_PATH),
        ("Get of an unknown property", standard_error("UnknownProperty"), PROPERTIES, "Get", "ss",
         (HUB1, "NoSuchProperty"), HUB_PATH),
        ("Get on an unknown interface", standard_error("UnknownInterface"), PROPERTIES, "Get", "ss",
         ("dev.sdlab.NoSuch1", "State"), HUB_PATH),
        ("Set of a property", standard_error("PropertyReadOnly"), PROPERTIES, "Set", "ssv",
         (HUB1, "Online", dbus.Boolean(False, variant_level=1)), HUB_PATH),
        ("Set of Generation", standard_error("PropertyReadOnly"), PROPERTIES, "Set", "ssv",
         (HUB1, "Generation", dbus.UInt64(0, variant_level=1)), HUB_PATH),
        ("a 1 MiB user name", device_error("BadCredentials"), HUB1, "CheckOut", "ss", (huge, "cou1"), HUB_PATH),
        ("a 1 MiB password", device_error("BadCredentials"), HUB1, "Unlock", "ss", ("cou1", huge), HUB_PATH),
        ("a 1 MiB user name and password to Enroll", device_error("BadCredentials"), HUB1, "Enroll", "ss",
         (huge, huge), HUB_PATH),
        ("a 1 MiB user name to SignIn", device_error("BadCredentials"), BROKER1, "SignIn", "sss",
         (huge, "cou1", CLIENT), HUB_PATH),
        ("a 1 MiB notify name to GetState", standard_error("InvalidArgs"), NOTIFY1, "GetState", "s", (huge,),
         HUB_PATH),
        ("a 1 MiB notify name to SetState", standard_error("InvalidArgs"), NOTIFY1, "SetState", "st", (huge, 1),
         HUB_PATH),
        ("a 512-byte notify name", standard_error("InvalidArgs"), NOTIFY1, "SetState", "st", ("n" * 512, 1),
         HUB_PATH),
        ("a 512-byte notify name to Register", standard_error("InvalidArgs"), NOTIFY1, "Register", "s",
         ("n" * 512,), HUB_PATH),
        ("a self. name to GetState", standard_error("InvalidArgs"), NOTIFY1, "GetState", "s", ("self.x",),
         HUB_PATH),
        ("a self. name to Register", standard_error("InvalidArgs"), NOTIFY1, "Register", "s", ("self.x",),
         HUB_PATH),
        ("an empty notify name to GetState", standard_error("InvalidArgs"), NOTIFY1, "GetState", "s", ("",),
         HUB_PATH),
        ("an empty notify name to SetState", standard_error("InvalidArgs"), NOTIFY1, "SetState", "st", ("", 1),
         HUB_PATH),
    ]


def bad_input(contract):
    device = contract.device
    session = device.session()
    for what, error, interface, member, signature, arguments, path in bad_calls():
        device.fails(f"{what} gets {error}", error, interface, member, signature, *arguments, path=path)
        contract.still_serves(what)
    device.succeeds("Register(max.state)", NOTIFY1, "Register", "s", "max.state")
    device.succeeds("SetState with 2**64-1", NOTIFY1, "SetState", "st", "max.state", dbus.UInt64(2 ** 64 - 1))
    contract.report.check("GetState reads 2**64-1 back", 2 ** 64 - 1, device.notify_state("max.state"))
    contract.report.check("bad input changed no session", session, device.session())


def default_profile(contract):
    check_introspection(contract)
    fresh_device(contract)
    unenrolled_refusals(contract)
    enrollment(contract)
    checked_out_story(contract)
    lock_and_unlock(contract, "cou1")
    checked_in_story(contract)
    offline_story(contract)
    broker_story(contract)
    remove_account_story(contract)
    key_service_story(contract)
    wipe_story(contract)
    foreign_post(contract)
    notify_state(contract)
    bad_input(contract)


# The other profiles ------------------------------------------------------------------------

def single_user_profile(contract):
    """`solo` (staging, single-user) enrolls; the first user to check out keeps the device."""
    device = contract.device
    device.succeeds("Enroll by the single-user staging user", HUB1, "Enroll", "ss", "solo", "solo")
    device.expect_session("enrolled single-user", "checked-in", "", 0)
    device.expect_properties("enrolled single-user", Shared=False)
    device.expect_device_information("enrolled single-user", deviceMode="personal")
    generation = check_out(contract, "cou1", "cou1", "CheckOut cou1")
    device.expect_properties("assigned", Shared=False, State="checked-out")
    device.expect_device_information("assigned", deviceMode="personal", generation=generation)
    device.expect_accounts("assigned", ["cou1"])
    device.succeeds("Lock", HUB1, "Lock")
    device.fails("CheckIn while locked (Locked first)", device_error("Locked"), HUB1, "CheckIn")
    device.succeeds("Unlock by cou1", HUB1, "Unlock", "ss", "cou1", "cou1")
    contract.posts_nothing("a refused CheckIn", lambda: device.fails(
        "CheckIn of a personal device", device_error("NotShared"), HUB1, "CheckIn"))
    contract.posts_nothing("a refused SignOut", lambda: device.fails(
        "SignOut on a personal device", device_error("NotShared"), BROKER1, "SignOut", "ss", home_account("cou1"),
        CLIENT))
    device.fails("SignOut of another account on a personal device", device_error("AccountMismatch"), BROKER1,
                 "SignOut", "ss", home_account("solo"), CLIENT)
    device.fails("SignIn on an assigned device", device_error("AlreadySignedIn"), BROKER1, "SignIn", "sss",
                 "solo", "solo", CLIENT)
    device.expect_session("still assigned", "checked-out", "cou1", generation)
    tokens(contract, "cou1")
    contract.posts_once("EnterpriseWipe of the assigned device",
                        lambda: device.succeeds("EnterpriseWipe", HUB1, "EnterpriseWipe"), generation + 1)
    device.expect_session("wiped", "unenrolled", "", generation + 1)
    device.succeeds("Enroll again by the single-user staging user", HUB1, "Enroll", "ss", "solo", "solo")
    device.expect_properties("enrolled again", State="checked-in", Shared=False)


def passcode_profile(contract):
    """Passcode policy on, and the broker also posts on sign-in."""
    device = contract.device
    device.succeeds("Enroll by the staging user", HUB1, "Enroll", "ss", "stage", "stage")
    device.expect_device_information("checked in", deviceMode="shared", passcodePolicy=True, passcodeSet=False)
    generation = device.generation() + 1
    contract.posts_once("CheckOut", lambda: device.succeeds("CheckOut cou1", HUB1, "CheckOut", "ss", "cou1", "cou1"),
                        generation)
    device.expect_session("checked out", "checked-out", "cou1", generation)
    device.expect_device_information("checked out", passcodePolicy=True, passcodeSet=True, generation=generation)
    check_in(contract)
    device.expect_device_information("after the check-in", passcodePolicy=True, passcodeSet=False)
    generation = device.generation() + 1
    contract.posts_once("SignIn", lambda: device.succeeds("SignIn cou2", BROKER1, "SignIn", "sss", "cou2", "cou2",
                                                          CLIENT), generation)
    device.expect_device_information("signed in", passcodeSet=True, generation=generation)
    generation += 1
    contract.posts_once("SignOut", lambda: device.succeeds("SignOut cou2", BROKER1, "SignOut", "ss",
                                                           home_account("cou2"), CLIENT), generation)
    device.expect_device_information("signed out", passcodePolicy=True, passcodeSet=False, generation=generation)


PROFILES = {
    "default": default_profile,
    "single-user": single_user_profile,
    "passcode-and-sign-in-posts": passcode_profile,
}


def main(arguments):
    if len(arguments) != 1 or arguments[0] not in PROFILES:
        print(f"usage: hub_contract.py {{{'|'.join(PROFILES)}}}", file=sys.stderr)
        return 2
    address = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
    if not address:
        print("DBUS_SESSION_BUS_ADDRESS is not set", file=sys.stderr)
        return 2
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    report = Report()
    try:
        contract = Contract(Device(dbus.bus.BusConnection(address), report), report)
        PROFILES[arguments[0]](contract)
    except CallFailed as failed:
        print(f"FAIL stopped: {failed} did not answer", flush=True)
        return 1
    except dbus.exceptions.DBusException as error:
        print(f"FAIL stopped: {error.get_dbus_name()}: {error.get_dbus_message()}", flush=True)
        return 1
    print(f"{'FAILED' if report.failures else 'passed'}: {arguments[0]}, {report.failures} failed", flush=True)
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
