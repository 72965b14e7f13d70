# olly runs every command of a session's shell in a fresh bash that executes
# this script (see docs/shell.md for why). It restores what the session's
# earlier commands left behind, runs the command, and saves the state again:
#
#     bash --noprofile --norc -c "$(cat wrapper.bash)" bash STATE_DIR TOKEN
#
# The command is read from STATE_DIR/cmd. The saved state is
#     out.env   exported variables as NUL-separated NAME=VALUE pairs; olly
#               builds the next command's environment from it, so unset and
#               changed variables carry over exactly
#     out.vars  shell variables, functions and aliases as bash source, sourced
#               before the next command (olly renames it to vars)
#     out.cwd   the final working directory ($PWD)
#     out.ok    TOKEN, written last: without it olly ignores the other files,
#               so a shell killed half-way through saving changes nothing
# Everything defined here starts with __olly_ and is never saved. Builtins
# are called through "builtin" because the restored state may define
# functions with the same names (nvm and rvm define cd, for example).

__olly_d=$1
__olly_tok=$2
set --
__olly_saved=

# __olly_names sets __olly_all to the names of all variables that exist now,
# through a file because capturing compgen's output would start a subshell.
__olly_names() {
	builtin compgen -v >"$__olly_d/out.n"
	builtin mapfile -t __olly_all <"$__olly_d/out.n"
}

# Names that exist before the state is restored are bash's own variables and
# the environment: they are never saved as shell variables.
__olly_names
declare -A __olly_base=()
for __olly_v in "${__olly_all[@]}"; do __olly_base[$__olly_v]=1; done

__olly_save() {
	# A stop signal now (olly stops everything a timed-out command started,
	# bash included) must not cut the save short: ignore it first.
	builtin trap '' TERM INT HUP QUIT
	[[ -z $__olly_saved ]] || return 0
	__olly_saved=1
	builtin trap - DEBUG ERR RETURN
	builtin set +o errexit +o nounset +o xtrace +o verbose +o noglob +o errtrace +o functrace
	# Names are collected first and written with one command per file:
	# a redirection per variable would cost three system calls each.
	local __olly_v __olly_a __olly_f __olly_fns __olly_kv=() __olly_sv=() __olly_fn=() __olly_fx=()
	__olly_names
	for __olly_v in "${__olly_all[@]}"; do
		case $__olly_v in
		__olly_* | _ | SHLVL | PWD | OLLY_SHELL_RUN | BASH_* | FUNCNAME | PIPESTATUS | COPROC* | ENV | SHELLOPTS | BASHOPTS) continue ;;
		esac
		__olly_a=${!__olly_v@a}
		if [[ $__olly_a == *x* ]]; then
			# Arrays cannot be exported; an exported name without a value is
			# not in the environment either.
			[[ $__olly_a != *[aA]* && -v $__olly_v ]] && __olly_kv+=("$__olly_v" "${!__olly_v}")
		elif [[ -z ${__olly_base[$__olly_v]} ]]; then
			__olly_sv+=("$__olly_v")
		fi
	done
	builtin declare -F >"$__olly_d/out.fn"
	builtin mapfile -t __olly_fns <"$__olly_d/out.fn"
	for __olly_f in "${__olly_fns[@]}"; do
		__olly_v=${__olly_f#declare -f* }
		[[ $__olly_v == __olly_* ]] && continue
		__olly_fn+=("$__olly_v")
		[[ $__olly_f == "declare -fx "* ]] && __olly_fx+=("$__olly_v")
	done
	{
		((${#__olly_sv[@]})) && builtin declare -p -- "${__olly_sv[@]}"
		((${#__olly_fn[@]})) && builtin declare -f -- "${__olly_fn[@]}"
		((${#__olly_fx[@]})) && builtin printf 'builtin declare -fx -- %q\n' "${__olly_fx[@]}"
		builtin alias -p
	} >"$__olly_d/out.vars"
	if ((${#__olly_kv[@]})); then
		builtin printf '%s=%s\0' "${__olly_kv[@]}" >"$__olly_d/out.env"
	else
		: >"$__olly_d/out.env"
	fi
	builtin printf '%s' "$PWD" >"$__olly_d/out.cwd"
	builtin printf '%s' "$__olly_tok" >"$__olly_d/out.ok"
}

# Aliases are off in non-interactive shells; a terminal has them.
builtin shopt -s expand_aliases
if [[ -f $__olly_d/vars ]]; then
	builtin source -- "$__olly_d/vars" 2>/dev/null
fi
builtin unset __olly_v

# The EXIT trap saves the state when the command calls exit (or set -e
# stops it, or a signal ends bash); the explicit call below covers a command
# that replaced the trap with its own.
builtin trap '{ __olly_save; } 2>/dev/null' EXIT
IFS= builtin read -r -d '' __olly_cmd <"$__olly_d/cmd"
builtin eval -- "$__olly_cmd"
{
	__olly_rc=$?
	__olly_save
} 2>/dev/null
builtin exit "$__olly_rc"
