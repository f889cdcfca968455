#!/bin/sh
# COMMAND's arguments reach it verbatim: spaces, quotes, glob characters,
# empty strings, newlines, backslashes and dollar signs are not touched.
. "${srcdir:-.}/tests/wrap/common.sh"

touch a.c b.c   # something for a glob to match, if anything expanded one

run 0 "$wrap" -q "$helpers/print-argv" "two words" "it's" '"quoted"' '*.c' \
	'[ab].c' '?' '' '$HOME' 'back\slash' ' lead' 'trail ' "line
break" '~' '; true' '$(echo no)'
expect_output "two words
it's
\"quoted\"
*.c
[ab].c
?

\$HOME
back\\slash
 lead
trail 
line
break
~
; true
\$(echo no)"

# argv[0] stays the name COMMAND was given by.
run 0 "$wrap" -q sh -c 'echo "$0"' zeroth
expect_output "zeroth"
ln -s "$helpers/print-argv" ./link-to-print-argv || exit 99
run 0 "$wrap" -q ./link-to-print-argv "x y"
expect_output "x y"

# A file that is neither ELF nor #! script runs under /bin/sh, as with
# execvp(), arguments included.
printf 'for a; do echo "<$a>"; done\n' >plain-script
chmod +x plain-script
run 0 "$wrap" -q ./plain-script "a b" '*'
expect_output "<a b>
<*>"
exit 0
