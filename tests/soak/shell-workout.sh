# shell-workout.sh - a POSIX shell script that forks and executes in every
# way a shell does; run by bash.soak and dash.soak.  Its output is the same
# on every run.
set -eu

# Pipelines of external programs.
seq 1 20000 | awk '{ print $1 % 97 }' | sort -n | uniq -c | sort -k1,1nr -k2,2n |
	head -n 5

# Command substitution, nested, in a loop: a fork for every one.
sum=0
for i in $(seq 1 100); do
	sum=$((sum + $(printf %s "$i" | wc -c) + $(echo "$i" | cut -c1)))
done
echo "sum $sum"

# Subshells that change their own state only.
count=1
(count=2; cd /; echo "subshell in $(pwd) count $count")
echo "parent count $count"

# Background jobs writing to files, waited for.
for j in 1 2 3 4; do
	(seq "$j" 4 4000 | sort -rn | head -n 1 >"job$j.out") &
done
wait
cat job1.out job2.out job3.out job4.out

# A here-document through a function and a descriptor opened with exec.
shout() {
	tr 'a-z' 'A-Z'
}
exec 3>notes.txt
shout <<TEXT >&3
here-document line $count
second line $(echo substituted)
TEXT
exec 3>&-
cat notes.txt

# Recursion through new shells.
depth() {
	if [ "$1" -gt 0 ]; then
		sh -c 'echo "level $1"' sh "$1"
		depth $(($1 - 1))
	fi
}
depth 4

# A subshell that replaces itself with a program.
(exec sort -r notes.txt)

# Status of a failing command, checked.
if ! false | grep -q x; then
	echo "pipeline status caught"
fi

# Finally the shell replaces itself.
exec echo "exec done"
