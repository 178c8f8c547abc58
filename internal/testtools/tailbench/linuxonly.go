//go:build !linux

package main

import "errors"

// errLinuxOnly is what pong, ping, warm and hpong say elsewhere: they speak
// through raw Linux sockets (accept4, SO_TIMESTAMPNS receive stamps,
// clock_nanosleep), which is what lets them measure the machine's floor.
var errLinuxOnly = errors.New("pong, ping, warm and hpong run on Linux only (raw sockets and receive stamps)")

func pongCmd([]string) error  { return errLinuxOnly }
func pingCmd([]string) error  { return errLinuxOnly }
func warmCmd([]string) error  { return errLinuxOnly }
func hpongCmd([]string) error { return errLinuxOnly }
