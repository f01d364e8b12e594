# SPDX-License-Identifier: GPL-2.0-only OR MIT
#
# The oracle of selftests/uboot/check.sh: gdb on qemu's gdbstub, stopped
# where the CPU took an exception, unwinds the code that faulted with the
# U-Boot ELF's DWARF (.debug_frame) and its own unwinders, and prints
#
#   oracle-fault pc PC ...          the faulting pc (run time)
#   oracle LEVEL PC normal|inline NAME   one line per gdb frame
#   oracle-end REASON               why gdb stopped unwinding
#
# then puts back what it changed and detaches, so U-Boot goes on to print
# its own backtrace.  Run as gdb-multiarch -nx -batch -x oracle.py, with
#
#   UW_ELF   the u-boot ELF
#   UW_SOCK  qemu's gdbstub (a unix socket)
#   UW_ARCH  aarch64 or arm
#   UW_MODE  fault: attach at the prompt, stop at the next exception;
#            early: attach at reset (qemu -S), and when dram_init() calls
#            ofnode_path(), give it the wild pointer UW_BAD instead of
#            its string: a real fault in real code, before relocation.
#
# AArch64: the breakpoint is the vector U-Boot's exceptions take (current
# EL, SP_ELx: VBAR + 0x200).  Nothing has run there yet: every register
# but pc is the faulting code's, and ELR_EL1 is its pc, so gdb sees the
# fault exactly.  ARM: the banked sp and lr of the faulting mode are not
# visible at the vector, so the breakpoint is the C handler
# (do_data_abort() and its siblings), and the registers are those the
# vector saved in its struct pt_regs (r0), the pc corrected as the
# handler does.
import os
import sys

import gdb

ELF = os.environ["UW_ELF"]
ARCH = os.environ["UW_ARCH"]
MODE = os.environ.get("UW_MODE", "fault")
ARM_HANDLERS = {
    "do_undefined_instruction": 4,
    "do_prefetch_abort": 4,
    "do_data_abort": 8,
}


def run(cmd):
    return gdb.execute(cmd, to_string=True)


def value(expr):
    return int(gdb.parse_and_eval(expr)) & ((1 << 64) - 1)


def say(text):
    print(text)
    sys.stdout.flush()


def frames():
    """gdb's frames from the registers as they are now."""
    say(run("bt"))
    f = gdb.newest_frame()
    last = f
    while f is not None:
        kind = "inline" if f.type() == gdb.INLINE_FRAME else "normal"
        say("oracle %d 0x%x %s %s" % (f.level(), f.pc(), kind,
                                      f.name() or "??"))
        last = f
        try:
            f = f.older()
        except gdb.error as e:
            say("oracle-end error %s" % e)
            return
    say("oracle-end %s" %
        gdb.frame_stop_reason_string(last.unwind_stop_reason()))


def at_fault_aarch64():
    pc = value("$pc")
    elr = value("$ELR_EL1")
    say("oracle-fault pc 0x%x esr 0x%x far 0x%x" %
        (elr, value("$ESR_EL1"), value("$FAR_EL1")))
    gdb.execute("set $pc = %d" % elr)
    frames()
    gdb.execute("set $pc = %d" % pc)


def at_fault_arm():
    handler = gdb.newest_frame().name()
    regs = value("$r0")
    names = ["r%d" % i for i in range(13)] + ["sp", "lr", "pc"]
    saved = [value("$" + n) for n in names]
    got = [value("((unsigned int *)%d)[%d]" % (regs, i)) for i in range(16)]
    got[15] -= ARM_HANDLERS[handler]
    say("oracle-fault pc 0x%x handler %s" % (got[15], handler))
    for n, v in zip(names, got):
        gdb.execute("set $%s = %d" % (n, v))
    frames()
    for n, v in zip(names, saved):
        gdb.execute("set $%s = %d" % (n, v))


def break_at_exceptions():
    if ARCH == "aarch64":
        gdb.execute("break *0x%x" % (value("(long)&vectors") + 0x200))
    else:
        for h in ARM_HANDLERS:
            gdb.execute("break " + h)


def main():
    gdb.execute("set pagination off")
    gdb.execute("set confirm off")
    gdb.execute("set backtrace limit 64")
    gdb.execute("file " + ELF)
    gdb.execute("target remote " + os.environ["UW_SOCK"])
    if MODE == "early":
        gdb.execute("tbreak dram_init")
        gdb.execute("continue")
        gdb.execute("tbreak ofnode_path")
        gdb.execute("continue")
        say("oracle-wild %s called from %s" % (
            gdb.newest_frame().name(), gdb.newest_frame().older().name()))
        gdb.execute("set $x0 = %s" % os.environ["UW_BAD"])
    else:
        gd = "((struct global_data *)$%s)" % ("x18" if ARCH == "aarch64"
                                              else "r9")
        off = value(gd + "->reloc_off") if value(gd + "->flags") & 1 else 0
        say("oracle-reloc 0x%x" % off)
        gdb.execute("symbol-file -o 0x%x %s" % (off, ELF))
    break_at_exceptions()
    say("oracle-armed")
    gdb.execute("continue")
    if ARCH == "aarch64":
        at_fault_aarch64()
    else:
        at_fault_arm()
    gdb.execute("delete")
    gdb.execute("detach")


try:
    main()
except gdb.error as e:
    say("oracle-error %s" % e)
