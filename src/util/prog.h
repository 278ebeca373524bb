/*
 * prog.h - what every line latrec prints on standard error begins with:
 * the command that prints it ("latrec record", "latrec report", ...), as
 * perf and rtla name their subcommands; "latrec" before a command is
 * chosen. The dispatcher (cli/main.c) sets it once, before the command
 * runs; the writer library inside a target says "latrec:" on its own.
 */
#ifndef LATREC_UTIL_PROG_H
#define LATREC_UTIL_PROG_H

extern const char *latrec_prog;

#endif
