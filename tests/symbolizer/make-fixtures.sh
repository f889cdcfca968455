#!/bin/sh
# make-fixtures.sh SRCDIR OUTDIR - build the files the symbolizer tests read.
#
# OUTDIR receives, all built from the same two sources:
#   fixture, libfixture.so      a PIE program and the library it dlopens,
#                               with symbols and DWARF
#   fixture-no-aranges          without .debug_aranges, as Clang links
#   fixture-stripped            without .symtab or DWARF; its debug file is
#                               debug-root/.build-id/xx/rest.debug
#   debuglink/fixture-debuglink stripped, .gnu_debuglink naming
#                               debuglink/.debug/fixture-debuglink.debug
#   badcrc/fixture-badcrc       stripped, .gnu_debuglink naming a file that
#                               was changed afterwards (CRC no longer matches)
#   sysroot/opt/fixture-stripped with its debug file in the sysroot's
#                               usr/lib/debug/.build-id tree
#   garbage, truncated          not ELF at all; an ELF file cut short
# Tools come from the environment: CC, OBJCOPY, STRIP, READELF.
set -eu

src=$1
out=$2
: "${CC:=cc}" "${OBJCOPY:=objcopy}" "${STRIP:=strip}" "${READELF:=readelf}"

# -O1: calls stay where the source puts them (see fixture-main.c).
cflags="-g -O1 -fno-omit-frame-pointer -Wl,--build-id"

rm -rf "$out"
mkdir -p "$out"
$CC $cflags -fPIC -shared -o "$out/libfixture.so" "$src/fixture-lib.c"
$CC $cflags -fPIE -pie -I"$src" -o "$out/fixture" \
	"$src/fixture-main.c" "$src/object-info.c" -ldl

build_id=$(LC_ALL=C $READELF -n "$out/fixture" | sed -n 's/^ *Build ID: *//p')
if [ -z "$build_id" ]; then
	echo "make-fixtures.sh: $out/fixture has no build-id" >&2
	exit 1
fi

# install_debug_file ROOT: the fixture's debug file, where a lookup by
# build-id under ROOT finds it.
install_debug_file() {
	dir="$1/.build-id/$(echo "$build_id" | cut -c1-2)"
	mkdir -p "$dir"
	$OBJCOPY --only-keep-debug "$out/fixture" \
		"$dir/$(echo "$build_id" | cut -c3-).debug"
}

# stripped_with_debuglink DIR NAME DEBUG: DIR/NAME stripped, linked to the
# debug file DEBUG.
stripped_with_debuglink() {
	mkdir -p "$1" "$(dirname "$3")"
	$OBJCOPY --only-keep-debug "$out/fixture" "$3"
	$STRIP --strip-all -o "$1/$2" "$out/fixture"
	$OBJCOPY --add-gnu-debuglink="$3" "$1/$2"
}

$OBJCOPY --remove-section .debug_aranges "$out/fixture" \
	"$out/fixture-no-aranges"
$STRIP --strip-all -o "$out/fixture-stripped" "$out/fixture"
install_debug_file "$out/debug-root"

stripped_with_debuglink "$out/debuglink" fixture-debuglink \
	"$out/debuglink/.debug/fixture-debuglink.debug"

stripped_with_debuglink "$out/badcrc" fixture-badcrc \
	"$out/badcrc/fixture-badcrc.debug"
printf 'changed after linking' >>"$out/badcrc/fixture-badcrc.debug"

mkdir -p "$out/sysroot/opt"
cp "$out/fixture-stripped" "$out/sysroot/opt/fixture-stripped"
install_debug_file "$out/sysroot/usr/lib/debug"

printf 'this is not an ELF file\n' >"$out/garbage"
head -c 1000 "$out/fixture" >"$out/truncated"
