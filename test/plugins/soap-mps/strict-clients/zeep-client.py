"""Runs the six MPSInterfaceService operations with zeep, a strict document/literal SOAP client.

Usage: zeep-client.py WSDL_URL USERNAME PASSWORD DELIVERY_URI MACHINE...
Prints one JSON object with what zeep read; the node:test suite beside this file checks it.
Exits 2 when zeep is missing, 1 when zeep refuses the WSDL or an answer.
"""
import json
import sys

try:
    from requests import Session
    from zeep import Client, Settings
    from zeep.exceptions import Fault
    from zeep.helpers import serialize_object
    from zeep.plugins import HistoryPlugin
    from zeep.transports import Transport
except ImportError as err:
    print(f"zeep is not installed: {err}", file=sys.stderr)
    sys.exit(2)


def main() -> None:
    wsdl_url, username, password, delivery, *machines = sys.argv[1:]
    session = Session()
    session.auth = (username, password)
    session.trust_env = False  # loopback only: no proxy from the environment
    transport = Transport(session=session, timeout=10, operation_timeout=10)
    history = HistoryPlugin()
    client = Client(wsdl_url, transport=transport, settings=Settings(strict=True), plugins=[history])
    service = client.service
    out = {"connected": {}, "pages": [], "faults": {}}

    for name in machines:
        out["connected"][name] = service.IsMachineConnected(Machine={"SystemName": name}).IsConnected

    started = service.EnumerateConnectedMachines()
    context = started.EnumerationContext
    out["expires"] = str(started.Expires)
    out["contextType"] = type(context).__name__
    for _ in range(10):
        page = service.Pull(EnumerationContext=context, MaxElements=4)
        items = [item.SystemName for item in (page.Items or [])]
        # zeep gives an empty xs:anyType element as None, so whether EndOfSequence is there is read
        # from the envelope zeep received.
        body = history.last_received["envelope"].find("{http://schemas.xmlsoap.org/soap/envelope/}Body")
        end = any(str(el.tag).endswith("}EndOfSequence") for el in body.iter())
        out["pages"].append({"items": items, "endOfSequence": end})
        if end:
            break
    out["release"] = serialize_object(service.Release(EnumerationContext=context))
    try:
        service.Pull(EnumerationContext=context)
    except Fault as fault:
        out["faults"]["pullAfterRelease"] = fault.message

    out["subscribeExpires"] = str(service.SubscribeForNotifications(Delivery=delivery).Expires)
    out["unsubscribe"] = serialize_object(service.Unsubscribe(Delivery=delivery))
    try:
        service.Unsubscribe(Delivery=delivery)
    except Fault as fault:
        out["faults"]["unsubscribeAgain"] = fault.message

    print(json.dumps(out, default=str))


if __name__ == "__main__":
    main()
