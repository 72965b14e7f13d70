# olly's session shell: one bash per session that runs the session's
# commands one after another, so cd, variables, functions and aliases
# simply stay (see docs/shell.md for the whole design). It is started as
#
#     bash --noprofile --norc -c "$(cat driver.bash)" bash STATE_DIR SLOT NAME=VALUE...
#
# STATE_DIR is this bash's own folder (one per bash: no other bash's
# processes can write it, see docs/shell.md). Its descriptors: 0 and 2
# /dev/null, 1 the write end of the frame pipe, 3 the read end of olly's
# wake pipe, 4 the request file (STATE_DIR/req, read-only), 5 /dev/null.
# The whole loop runs inside one group that closes 3, 4 and 5: bash keeps
# copies of them, close-on-exec, at 10 (wake), 11 (request) and 12
# (/dev/null), the lowest free descriptors from 10 (checked below), so
# no program a command runs inherits them, and no redirection per command
# is needed to hide them (each costs bash half a dozen system calls, a
# saved and restored one a dozen). Outside a command stdout is the frame
# pipe, so a frame is one write; a command runs in a group that puts its
# stdout and stderr on its output FIFO, which bash undoes after it (a
# command that closes bash's saved copies, fds 13 and up, keeps its
# exec's redirection past the group, and then olly's next frame goes
# there: olly answers the missing frame with a new bash, after 2 s or at
# the timeout, TestBashStdoutKeptPastACommand). SLOT names the state
# file (STATE_DIR/state<SLOT>) olly copied there from what an earlier bash
# of the session saved last ("" for none); the NAME=VALUE pairs are exported before every command
# that follows a state change (TERM=dumb, TMPDIR, ...: a stateless command
# cannot change them). Saves alternate between state0 and state1, so
# a bash killed while saving never spoils the last complete state.
#
# First of all, before anything a bash too old for the rest could fail on,
# bash says which it is on the frame pipe: "V major minor" (olly needs 4.4
# or newer; this replaces starting a bash just to ask). Every later frame
# answers a request.
#
# One command: olly writes the request into the request file, from its
# start (NUL-separated: token, directory, output FIFO, save flag, sync
# flag, command, then the command names to check) and one byte to the
# wake pipe; bash reads the file through a fresh open of the descriptor
# it was given (/proc/self/fd/11: the same file whatever is at its path
# now, read from its start). With the sync flag, bash
# first takes over STATE_DIR/sync, the state the session's other bash
# saved (a session has one bash per sandbox policy, see docs/shell.md);
# sync flag "d": a read-only bash saved it, and olly wrote from it the
# variables only, as data (handover.go), which bash takes keeping its
# own functions and aliases.
# With save flag 0 (olly found the command cannot change the state: only
# programs and harmless builtins, literal names) and none of the names a
# function or an alias, no save and no S frame follow, and neither does
# the reset of options and traps (such a command cannot set them). bash
# answers on the frame pipe with NUL-separated frames:
#     B token                  the command begins (the names of the
#                              session's functions among the command's,
#                              one per line, may come before the B:
#                              declare -F prints them)
#     D token rc flags pwd     it ended (flags: "b" it started a background
#                              job, "s" an S frame follows)
#     S token slot             the state is saved in STATE_DIR/state<slot>
# The command runs with stdout and stderr on the FIFO, stdin /dev/null
# (put back if a command's exec changed bash's own) and the channels only
# at close-on-exec descriptors, so what it starts inherits neither. If
# bash exits during a command (exit, set -e, a signal), the EXIT trap
# saves the state and writes "token rc pwd slot" to STATE_DIR/exit, last.
# Everything here starts with __olly_; builtins are called through
# "builtin" because the session may define functions with their names.

builtin printf 'V\0%s\0%s\0' "${BASH_VERSINFO[0]}" "${BASH_VERSINFO[1]}"

# __olly_clear empties what the session defined in this bash before it
# takes over the state the session's other bash saved (the sync file
# olly copied into this bash's folder): every function and alias, and
# the variables (__olly_clearv), so that what the other bash unset does
# not linger here.
__olly_clear() {
	builtin compgen -A function >"$__olly_d/names" 2>/dev/null
	builtin mapfile -t __olly_names <"$__olly_d/names"
	for __olly_n in "${__olly_names[@]}"; do
		[[ $__olly_n == __olly_* ]] || builtin unset -f -- "$__olly_n" 2>/dev/null
	done
	builtin unalias -a
	__olly_clearv
}

# __olly_clearv unsets every variable but bash's own and olly's (a
# readonly one cannot be). With arguments (the first line of the data
# olly wrote from a read-only bash's state: it carries no functions or
# aliases, and none of these names) it also leaves the names olly never
# carries from there (olly fills in the list: handover.go) and the names
# given after the first, which did not cross, so this bash keeps its own.
__olly_clearv() {
	builtin compgen -v >"$__olly_d/names" 2>/dev/null
	builtin mapfile -t __olly_names <"$__olly_d/names"
	builtin local -A __olly_kn
	for __olly_n in "${@:2}"; do __olly_kn[$__olly_n]=1; done
	for __olly_n in "${__olly_names[@]}"; do
		[[ $__olly_n == __olly_* || -n ${__olly_own[$__olly_n]+x} || -n ${__olly_kn[$__olly_n]+x} ]] && builtin continue
		if [[ -n $1 ]]; then
			case $__olly_n in
			__OLLY_KEEP__) builtin continue ;;
			esac
		fi
		builtin unset -n -- "$__olly_n" 2>/dev/null # a nameref itself
		builtin unset -v -- "$__olly_n" 2>/dev/null
	done
	builtin unset __olly_names
}

# __olly_reset undoes what must not outlive a command: shell options,
# traps, alias expansion for olly's own code, a nameref _ (bash assigns _
# after every simple command: a subscript in its target runs as code).
# (set +m only when on: it costs a system call. bash puts a DEBUG, ERR or
# RETURN trap back when a function that removed it returns: ignoring them
# here is what removes them. Every signal's trap goes, 1 to 64, Linux's
# every signal (a number a system lacks is an error on stderr, /dev/null
# here): a trap left on CHLD, say, would run during the next, stateless,
# command, after which nothing is reset or saved; TestEveryTrapIsRemoved.)
__olly_reset() {
	__olly_purge
	[[ ! -R _ ]] || builtin unset -n _
	[[ $- != *m* ]] || builtin set +m
	builtin set +aCeEfknPtTuvx -B +o pipefail +o posix
	builtin shopt -u expand_aliases autocd cdable_vars cdspell dotglob execfail extdebug extglob failglob globstar lastpipe nocaseglob nocasematch nullglob xpg_echo inherit_errexit
	builtin trap '' DEBUG ERR RETURN
	builtin trap - {1..64}
	builtin trap '__olly_exit' EXIT
	__olly_tmout
}

# __olly_purge removes a function named builtin, which would run in
# place of every builtin olly's code calls (all through "builtin"): it
# could fake every later command, here and in each bash that takes over
# a state that holds it (declare -f saves it). In POSIX mode (turned on
# by the assignment, no command) unset, a special builtin, is found
# before any function (one named unset too); a readonly function cannot
# be unset: the assignment to a readonly variable that follows ends bash
# (in POSIX mode), which olly answers with a bash without that state
# (retryUnbegun). POSIXLY_CORRECT keeps a value it had; leaving POSIX
# mode turns inherit_errexit on (the reset turns it off, and the sync
# after its purge). Called right after a state is sourced (start, sync),
# first in __olly_reset and __olly_exit: before anything else of olly's
# calls a builtin (TestBuiltinFunctionCannotTakeOver).
__olly_purge() {
	__olly_pc=${POSIXLY_CORRECT+x}
	POSIXLY_CORRECT=${POSIXLY_CORRECT-y}
	unset -f builtin declare alias : || __olly_ifs=
	[[ -n $__olly_pc ]] || unset POSIXLY_CORRECT
}

# __olly_vars assigns, once, every variable of olly's that its loop and
# functions assign, after a state is sourced (start, full sync) and
# before the B frame: a state that made one readonly (the EXIT trap saves
# the attribute) or a nameref to a readonly one ends bash here, before the
# command begins, which olly answers with a bash without that state
# (retryUnbegun); left to the loop, it ended bash after B (__olly_f) or
# after D (__olly_slot) of every command, and the state was kept, for
# good. Unset first (-n: a nameref itself): no attribute the state gave
# them (-i, -n, -u...) is left; __olly_req, the request a sync serves,
# keeps its value; __olly_ok is 1 (a state holds it: the sync that takes
# it over checks it after its source). Not here: __olly_d, __olly_last and
# __olly_forced, assigned right after each source; __olly_keep, assigned
# before the sync's source (a readonly one fails the next sync, before
# B); __olly_loop and __olly_ifs are readonly. TestDriverVariablesAreAssignedAfterASource
# checks the list against the driver.
__olly_vars() {
	builtin unset -n __olly_rc __olly_in __olly_f __olly_dirty __olly_slot __olly_w __olly_eof __olly_ok __olly_tok __olly_out __olly_cmd __olly_sv __olly_n __olly_bg __olly_pc __olly_rt __olly_names
	__olly_rc= __olly_in= __olly_f= __olly_dirty=1 __olly_slot= __olly_w= __olly_eof= __olly_ok=1 __olly_tok= __olly_out= __olly_cmd= __olly_sv= __olly_n= __olly_bg= __olly_pc= __olly_rt=() __olly_names=()
	__olly_req=("${__olly_req[@]}")
}

# __olly_tmout picks the wait for olly's next request: with -t only
# while the session has a TMOUT (a default timeout for read, which must
# not end the wait, and bash); without, bash makes 4 system calls fewer
# per command (no pselect6, fstat and signal mask around the read).
# Called where TMOUT may have changed: after a saved command (from
# __olly_reset), at the start and after a sync.
__olly_tmout() {
	if [[ -n ${TMOUT+x} ]]; then
		__olly_rt=(-t 2147483)
	else
		__olly_rt=()
	fi
}

# __olly_save writes everything bash can print back as source: variables
# with their attributes, functions (and which are exported) and aliases,
# into the slot it did not save last.
__olly_save() {
	builtin unset __olly_cmd __olly_req
	__olly_slot=$((1 - __olly_last))
	{
		builtin declare -p
		builtin declare -f
		builtin declare -F
		builtin alias -p
	} >"$__olly_d/state$__olly_slot"
	__olly_last=$__olly_slot
}

# __olly_exit runs when bash exits. During a command (exit, a set -e
# failure, SIGTERM from a timeout) it saves the state and says how the
# command ended; a stop signal now must not cut that short.
__olly_exit() {
	__olly_rc=$?
	if [[ -n $__olly_in ]]; then
		__olly_purge
		builtin trap '' TERM INT HUP QUIT
		__olly_in=
		builtin set +o errexit +o nounset +o xtrace +o verbose +o noglob
		__olly_save
		builtin printf '%s\0%s\0%s\0%s\0' "$__olly_tok" "$__olly_rc" "$PWD" "$__olly_slot" >"$__olly_d/exit"
	fi
}

# olly's functions are readonly, and defined before the restore: a command
# cannot redefine them, and the copies of them a state file holds are
# ignored (bash refuses to redefine a readonly function).
builtin readonly -f __olly_clear __olly_clearv __olly_reset __olly_purge __olly_vars __olly_tmout __olly_save __olly_exit

# The loop: olly's code between two commands, at the top level, not in
# functions: bash copies a function's whole body at each call and frees it
# after (the three functions it called per command cost ~140,000 of bash's
# 886,000 instructions per command, callgrind of BenchmarkRunStep; see
# docs/performance.md, "Session 30"). (A DEBUG trap a saved command set
# runs before each statement here until __olly_reset ignores it, as it ran
# before the call of the function that did this: either way before olly's
# code, whose variables it can set.)
# The loop runs again if a command leaves it (break, break 9).
# A request with the sync flag first takes over the state the
# session's other bash saved, at the top level (a declare in a function
# would make the variables local), keeping olly's own variables of this
# bash, with its stdio on /dev/null opened by path (a command may have
# closed fd 12). A command's stdin is /dev/null: bash's own, unless a command's
# exec changed it (two stat calls tell; the redirection costs a dozen).
# bash undoes a group's redirections last first, and stops at the
# first it cannot undo (a command closed the copy it saved): stdout,
# the frame pipe, is redirected last, so it is put back first.
#
# The loop's text holds no comments: it is a readonly variable, which
# every saved state holds (declare -p). In order:
# - The end of the command that ran (if one did): the D frame first, so
#   olly can return the result, then the state is saved. A command found
#   stateless cannot have set options or traps (nor had aliases on: only
#   a saved command turns them on), nor changed anything the next one
#   would have to check again (__olly_dirty stays 0).
# - The wait for olly's next request, and its read (__olly_rt: -t where
#   the session set TMOUT, see __olly_tmout). No IFS= before read: with
#   -n 1 it cannot matter, and a temporary assignment makes bash build
#   the environment of exported variables again after the builtin. The
#   request is read through a fresh open of the file bash holds (its own
#   read position, from the start: a job that inherited fd 11 and reads
#   it cannot take the request away); the path only where /proc is
#   missing. Opened at 3, which the driver group keeps closed: bash has
#   no descriptor to save and put back around the read (6 system calls,
#   not 13 as with a redirection of the standard input).
# - A sync, if asked for (above). Not sourced (the file or /dev/null
#   could not be opened): this bash, its state wiped, must run nothing
#   and save nothing. The state sourced may have set olly's variables,
#   and TMOUT.
# - After a sync, a nameref _ the state sourced made goes first (bash
#   assigns _ after every simple command: a subscript in its target
#   would run as code; after a saved command __olly_reset unsets it).
# - The request: OLLY_SHELL_RUN, exported (below), takes its new value
#   by assignment.
# - After a saved command, a sync or at the start (__olly_dirty not 0):
#   a nameref __olly_n
#   (a command's declare -n would make each name below the value of the
#   variable it names, hiding a function). BASH_ALIASES is looked into
#   only while it is bash's own associative array: unset, or made an
#   indexed one, it would have each name evaluated as arithmetic
#   (ls='POSIXLY_CORRECT=1' assigns, a subscript runs code), and a
#   nameref's target subscript even by ${BASH_ALIASES@a} (-R does not
#   resolve it); then the command is saved (so the next one checks
#   again). The forced variables are exported again and IFS set as bash
#   starts with it ($__olly_ifs: readonly). A command found stateless
#   changes none of these: after one, they are as they were checked and
#   set.
# - After a sync PWD is the other bash's: cd all the same.
# - A command olly found stateless (save flag 0) is saved all the same
#   if one of its command names is a function or an alias of the
#   session. (What declare -F prints, the name, goes to the frame pipe,
#   before the B frame, which olly allows: a redirection here would cost
#   bash a dozen system calls.)
# - bash checks its stdin only where a command may have changed it, and
#   again before each command while it is not /dev/null (the group puts
#   /dev/null there for the command only).
# - The loop and the line after it are one group, so bash parses that
#   line with the loop, before a command that leaves the loop turned
#   aliases on and made some.
__olly_loop='{ while
	__olly_rc=$?
	if [[ -n $__olly_in ]]; then
		if [[ $__olly_sv == 1 ]]; then
			__olly_reset
			__olly_in= __olly_f=s __olly_dirty=1
			[[ $! == "$__olly_bg" ]] || __olly_f=bs
			builtin printf "D\0%s\0%s\0%s\0%s\0" "$__olly_tok" "$__olly_rc" "$__olly_f" "$PWD"
			__olly_save
			builtin printf "S\0%s\0%s\0" "$__olly_tok" "$__olly_last"
		else
			__olly_in= __olly_f=
			[[ $! == "$__olly_bg" ]] || __olly_f=b
			builtin printf "D\0%s\0%s\0%s\0%s\0" "$__olly_tok" "$__olly_rc" "$__olly_f" "$PWD"
		fi
	fi
	builtin read -r -n 1 "${__olly_rt[@]}" -u 10 __olly_w && {
		builtin mapfile -d "" -t -u 3 __olly_req 3</proc/self/fd/11 ||
			builtin mapfile -d "" -t -u 3 __olly_req 3<"$__olly_d/req"
	} || ! __olly_eof=1
do
	if [[ $__olly_dirty != 0 || -n ${__olly_req[4]} ]]; then
		if [[ -n ${__olly_req[4]} ]]; then
			if [[ ${__olly_req[4]} == d ]]; then
				__olly_ok=
				{
					[[ -f $__olly_d/sync && -r $__olly_d/sync ]] && __olly_ok=1
					[[ -z $__olly_ok ]] || builtin source -- "$__olly_d/sync"
				} </dev/null >/dev/null 2>&1
				[[ ! -R _ ]] || builtin unset -n _
				[[ -n $__olly_ok ]] || builtin exit 1
			else
				__olly_clear
				__olly_keep=("$__olly_d" "$__olly_last" "${__olly_forced[@]}")
				builtin shopt -s expand_aliases
				__olly_ok=
				{
					[[ -f $__olly_d/sync && -r $__olly_d/sync ]] && __olly_ok=1
					[[ -z $__olly_ok ]] || builtin source -- "$__olly_d/sync"
				} </dev/null >/dev/null 2>&1
				__olly_purge
				[[ ! -R _ ]] || builtin unset -n _
				builtin shopt -u expand_aliases inherit_errexit
				[[ -n $__olly_ok ]] || builtin exit 1
				__olly_vars
				__olly_d=${__olly_keep[0]} __olly_last=${__olly_keep[1]} __olly_forced=("${__olly_keep[@]:2}")
				builtin unset __olly_keep
			fi
			__olly_dirty=1
			__olly_tmout
		fi
		__olly_tok=${__olly_req[0]} __olly_out=${__olly_req[2]} __olly_cmd=${__olly_req[5]} __olly_sv=${__olly_req[3]} OLLY_SHELL_RUN=${__olly_req[0]}
		builtin unset -n __olly_n
		[[ ! -R BASH_ALIASES && ${BASH_ALIASES@a} == A ]] || __olly_sv=1
		builtin export OLLY_SHELL_RUN "${__olly_forced[@]}"
		IFS=$__olly_ifs
	else
		__olly_tok=${__olly_req[0]} __olly_out=${__olly_req[2]} __olly_cmd=${__olly_req[5]} __olly_sv=${__olly_req[3]} OLLY_SHELL_RUN=${__olly_req[0]}
	fi
	if [[ $PWD != "${__olly_req[1]}" || -n ${__olly_req[4]} ]]; then
		builtin cd -- "${__olly_req[1]}"
	fi
	[[ $__olly_sv == 1 ]] || for __olly_n in "${__olly_req[@]:6}"; do
		[[ -z ${BASH_ALIASES[$__olly_n]+x} ]] || __olly_sv=1
		builtin declare -F -- "$__olly_n" && __olly_sv=1
	done
	__olly_in=1 __olly_bg=$!
	builtin printf "B\0%s\0" "$__olly_tok"
	if [[ $__olly_dirty == 0 ]]; then
		{
			[[ $__olly_sv != 1 ]] || builtin shopt -s expand_aliases
			builtin eval -- "$__olly_cmd"
		} 2>"$__olly_out" >&2
	elif [[ /dev/fd/0 -ef /dev/fd/12 ]]; then
		__olly_dirty=0
		{
			[[ $__olly_sv != 1 ]] || builtin shopt -s expand_aliases
			builtin eval -- "$__olly_cmd"
		} 2>"$__olly_out" >&2
	else
		__olly_dirty=1
		{
			[[ $__olly_sv != 1 ]] || builtin shopt -s expand_aliases
			builtin eval -- "$__olly_cmd"
		} </dev/null 2>"$__olly_out" >&2
	fi
done
[[ -n $__olly_eof ]] || { builtin shopt -u expand_aliases; builtin eval -- "$__olly_loop"; }; }'
# Readonly, and set before any saved state is sourced: a command that
# set it and left the loop (break) would run its own loop instead,
# faking every later command (TestLoopCannotBeReplaced).
builtin readonly __olly_loop __olly_ifs=$' \t\n'

# bash's own variables (the ones not exported at start): a sync leaves
# them alone.
builtin declare -A __olly_own __olly_ex
builtin compgen -e >"$1/names" 2>/dev/null
builtin mapfile -t __olly_names <"$1/names"
for __olly_n in "${__olly_names[@]}"; do __olly_ex[$__olly_n]=1; done
builtin compgen -v >"$1/names" 2>/dev/null
builtin mapfile -t __olly_names <"$1/names"
for __olly_n in "${__olly_names[@]}"; do
	[[ -n ${__olly_ex[$__olly_n]+x} ]] || __olly_own[$__olly_n]=1
done
builtin unset __olly_ex __olly_names

# Everything from here runs in one group that closes 3, 4 and 5: bash
# saves them first, close-on-exec, at 10, 11 and 12 (the lowest free
# descriptors from 10, closed first: what olly's own parent left open
# there without close-on-exec reaches bash too), where olly's code reads
# them, and puts them back only when bash exits. (exec as a special
# builtin, in POSIX mode, before any function of that name: "builtin
# exec" would undo its redirections. Leaving POSIX mode turns
# inherit_errexit on.)
builtin set -o posix
exec 10<&- 11<&- 12<&-
builtin set +o posix
builtin shopt -u inherit_errexit
{
	# Restore what the session's previous bash left (aliases on, as when
	# the definitions were made). olly passes a slot only when that state
	# may be trusted by this bash (never one a sandboxed bash wrote to an
	# unsandboxed one) and copied it into this bash's own folder. Its own
	# variables are set again below. A state file is sourced as commands
	# run, away from the frame pipe: a command may have written it.
	# A slot ending in "d" (a state a read-only bash saved, restored into
	# a bash that is not read-only) is followed by the data olly wrote from
	# it ("data": variables only, in olly's quoting), taken as a data sync
	# takes it; "d" alone has no state to source before.
	if [[ -n $2 && $2 != d ]]; then
		builtin shopt -s expand_aliases
		builtin source -- "$1/state${2%d}" >&12 2>&12 <&12
		__olly_purge
		__olly_vars
		builtin shopt -u expand_aliases
	fi
	__olly_d=$1
	if [[ $2 == *d ]]; then
		builtin source -- "$1/data" >&12 2>&12 <&12
	fi
	__olly_last=${2%d}
	__olly_last=${__olly_last:-1}
	__olly_forced=("${@:3}")
	builtin set --
	__olly_in=
	__olly_eof=
	__olly_tok=
	__olly_bg=
	__olly_dirty=1

	__olly_reset
	builtin eval -- "$__olly_loop"
} 3<&- 4<&- 5<&-
# Past the group without the end of olly's requests: bash dropped the
# rest of the group (an assignment to a variable a restored state made
# readonly fails so): a failure, which olly answers with a bash without
# that state (retryUnbegun). No "builtin exit" here: a function named
# builtin may be left (__olly_purge); in POSIX mode exit, a special
# builtin, is found before a function of its name (a readonly
# POSIXLY_CORRECT fails the assignment, which ends bash too: status 1).
if [[ -z $__olly_eof ]]; then
	POSIXLY_CORRECT=y
	exit 125
fi
