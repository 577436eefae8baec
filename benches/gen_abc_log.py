#!/usr/bin/env python3
"""Writes a DroidRacer abc_log.txt of about MB megabytes, shaped like the TACAS 2016 logs: a main
looper (thread 1), the UI-input thread 2, a worker thread, binder threads posting lifecycle and
window-focus messages, handlers that enable and trigger UI events, post delayed messages, take
locks, and whose heap accesses come as rwId: lines closed by ACCESS, plus messages never handled
and handlers with no operation. Usage: gen_abc_log.py MB > abc_log.txt"""
import sys

target = int(sys.argv[1]) << 20
out = sys.stdout
size = 0
op = 0
rw = 0
acc = 0


def w(line):
    global size
    out.write(line)
    size += len(line)


def o(text):
    global op
    op += 1
    w(f"{op} {text}\n")


def access(tid, n, salt):
    global rw, acc
    for k in range(n):
        rw += 1
        if k % 3 == 0:
            w(f"rwId:{rw} READ-STATIC tid:{tid} class:Lcom/example/app/Util; field:{4300 + salt % 17}\n")
        elif k % 3 == 1:
            w(f"rwId:{rw} READ tid:{tid} obj:0x41{salt % 4096:04x}0 class:Lcom/example/app/Model; field:{k % 9}\n")
        else:
            w(f"rwId:{rw} WRITE tid:{tid} obj:0x41{(salt * 7) % 4096:04x}0 class:[Ljava/lang/Object; field:{k % 5}\n")
    acc += 1
    o(f"ACCESS tid:{tid}\t accessId:{acc}")


o("START")
o("THREADINIT tid:1")
o("ENABLE-LIFECYCLE tid:1 component: id:0 state:BIND-APP")
o("FORK par-tid:1\t child-tid:2")
o("THREADINIT tid:2")
o("FORK par-tid:1\t child-tid:5")
o("THREADINIT tid:5")
o("ATTACH-Q tid:1\t queue:1090947360")
msg = 0
msg += 1
o("NATIVE-ENTRY tid:3thread-name:Binder Thread #1")
o(f"POST src:3 msg:{msg} dest:-1 delay:0")
o("NATIVE-EXIT tid:3thread-name:Binder Thread #1")
o("LOOP tid:1\t queue:1090947360")
o(f"CALL tid:1\t msg:{msg}")
o("TRIGGER-LIFECYCLE tid:1 component: id:0 state:BIND-APP")
access(1, 6, msg)
o(f"RET tid:1\t msg:{msg}")
i = 0
while size < target:
    i += 1
    # a binder post whose handler enables a view event and a window focus
    msg += 1
    binder = 3 + i % 2
    o(f"NATIVE-ENTRY tid:{binder}thread-name:Binder Thread #{binder - 2}")
    o(f"POST src:{binder} msg:{msg} dest:-1 delay:0")
    o(f"NATIVE-EXIT tid:{binder}thread-name:Binder Thread #{binder - 2}")
    o(f"CALL tid:1\t msg:{msg}")
    o(f"ENABLE-EVENT tid:1 view:{1091000000 + i} event:0")
    o(f"ENABLE-EVENT tid:1 view:{1091000000 + i} event:1")
    o(f"ENABLE-WINDOW-FOCUS tid:1 windowHash:{1092000000 + i}")
    access(1, 12, i)
    ui = msg + 1
    o(f"POST src:1 msg:{ui} dest:-1 delay:0")
    o(f"RET tid:1\t msg:{msg}")
    # the UI event's handler: triggers it, posts a delayed message, locks
    msg = ui
    o(f"CALL tid:1\t msg:{msg}")
    o(f"TRIGGER-EVENT tid:1 view:{1091000000 + i} event:0")
    o(f"LOCK tid:1\t lock-obj:0x410b{i % 256:02x}78")
    access(1, 9, i + 1)
    o(f"UNLOCK tid:1\t lock-obj:0x410b{i % 256:02x}78")
    delayed = msg + 1
    o(f"POST src:1 msg:{delayed} dest:-1 delay:500")
    o(f"POST src:1 msg:{delayed + 1} dest:-1 delay:0")
    o(f"RET tid:1\t msg:{msg}")
    # the delayed handler; an empty handler; a message never handled
    msg = delayed
    o(f"CALL tid:1\t msg:{msg}")
    access(1, 4, i + 2)
    o(f"RET tid:1\t msg:{msg}")
    msg += 1
    o(f"CALL tid:1\t msg:{msg}")
    o(f"RET tid:1\t msg:{msg}")
    msg += 1
    o(f"POST src:5 msg:{msg} dest:-1 delay:0")
    # the worker thread's own accesses
    access(5, 3, i + 3)
    # a window focus change delivered by a binder thread
    msg += 1
    o(f"NATIVE-ENTRY tid:{binder}thread-name:Binder Thread #{binder - 2}")
    o(f"POST src:{binder} msg:{msg} dest:-1 delay:0")
    o(f"NATIVE-EXIT tid:{binder}thread-name:Binder Thread #{binder - 2}")
    o(f"CALL tid:1\t msg:{msg}")
    o(f"TRIGGER-WINDOW-FOCUS tid:1 windowHash:{1092000000 + i}")
    access(1, 2, i + 4)
    o(f"RET tid:1\t msg:{msg}")
w(" \n \n \n HB Graph \n \n")
