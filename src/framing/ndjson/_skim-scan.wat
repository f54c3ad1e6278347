;; The skimmer's check of a string it may skip (src/framing/ndjson/_skim.ts, `scanString` with non-ASCII
;; bytes passed over), 16 bytes at a time with WebAssembly SIMD. Assembled by scripts/build-wasm.mjs into
;; _skim-scan.wasm.ts (committed: the build needs no assembler); _skim-native.ts runs it.
;;
;; Why hand-written: the check is JSON string syntax (escapes, no raw control byte, no printable ASCII
;; escaped) fused with the secret check's anchor tests (src/stages/redact/redact-text.ts `anchored`); no
;; library scans for that set of bytes, and a JavaScript byte loop is at its limit (docs/benchmarks.md).
;;
;; Memory: [0, 257) a table of byte sets for the anchor tests (entry 256: "no byte", before the string),
;; built by $init from the lists at LISTS; [HITS, HITS + 4 * HIT_CAP) where anchors passed (u32, absolute);
;; from INPUT the caller's bytes: the string's text to the end of its line, then one 0 byte, a sentinel
;; (a control byte, so a scan never reads past it: an unclosed string ends there as invalid).

(module
  (memory (export "memory") 2)

  ;; The anchor tests' byte sets, one list each, ended by 0; bit k of a table entry = in list k.
  ;;   0 after `gh`, `sk`... before `_` | 1 before that | 2 `xox?-` | 3 `pypi-`, `xapp-` | 4 `hooks.`, `hvs.`
  ;;   5 the `a` of aws | 6 its `s` | 7 after `A` (AKIA, ASIA, ABIA, ACCA, A3T, AIza)
  (data (i32.const 512) "pousrbkmf\00hsurpo\00bpear\00pi\00kv\00aA\00sS\00KSBC3I\00")

  (global $HITS i32 (i32.const 1024))
  (global $HIT_CAP i32 (i32.const 4096))
  (global $hits (mut i32) (i32.const 0))
  (global $resume (mut i32) (i32.const 0))
  ;; Line breaks written in the string (`\n`, `\u000a`), for a view that shows a long output's ends.
  (global $newlines (mut i32) (i32.const 0))

  ;; Builds the byte-set table from the lists.
  (func $init
    (local $at i32) (local $list i32) (local $c i32)
    (local.set $at (i32.const 512))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $list) (i32.const 8)))
        (local.set $c (i32.load8_u (local.get $at)))
        (local.set $at (i32.add (local.get $at) (i32.const 1)))
        (if (i32.eqz (local.get $c))
          (then (local.set $list (i32.add (local.get $list) (i32.const 1))))
          (else
            (i32.store8 (local.get $c)
              (i32.or (i32.load8_u (local.get $c)) (i32.shl (i32.const 1) (local.get $list))))))
        (br $next))))
  (start $init)

  ;; How many anchors passed in the last scan (their positions are at HITS), and where a scan stopped
  ;; because HITS was full (it returned -2: the caller takes the hits and scans on from there).
  (func (export "hits") (result i32) (global.get $hits))
  (func (export "hitsAt") (result i32) (global.get $HITS))
  (func (export "resumeAt") (result i32) (global.get $resume))
  (func (export "newlines") (result i32) (global.get $newlines))

  ;; Whether byte `b` (256: none) is in list `list`.
  (func $in (param $b i32) (param $list i32) (result i32)
    (i32.and (i32.shr_u (i32.load8_u (local.get $b)) (local.get $list)) (i32.const 1)))

  ;; Bytes taken by the escape at `p` (0: not a JSON escape, or one writing a printable ASCII character
  ;; the long way, `\/`, `\u0041`). The sentinel ends any escape cut by the line's end.
  (func $escape (param $p i32) (result i32)
    (local $e i32) (local $k i32) (local $h i32)
    (local.set $e (i32.load8_u offset=1 (local.get $p)))
    (if (i32.or
          (i32.or (i32.or (i32.eq (local.get $e) (i32.const 0x22)) (i32.eq (local.get $e) (i32.const 0x5c)))
                  (i32.or (i32.eq (local.get $e) (i32.const 0x62)) (i32.eq (local.get $e) (i32.const 0x66))))
          (i32.or (i32.or (i32.eq (local.get $e) (i32.const 0x6e)) (i32.eq (local.get $e) (i32.const 0x72)))
                  (i32.eq (local.get $e) (i32.const 0x74))))
      (then
        (if (i32.eq (local.get $e) (i32.const 0x6e))
          (then (global.set $newlines (i32.add (global.get $newlines) (i32.const 1)))))
        (return (i32.const 2))))
    (if (i32.ne (local.get $e) (i32.const 0x75)) (then (return (i32.const 0))))
    (local.set $k (i32.const 2))
    (loop $hex
      (local.set $h (i32.load8_u (i32.add (local.get $p) (local.get $k))))
      ;; 0-9, A-F, a-f (bit 5 set lowers a letter)
      (if (i32.eqz
            (i32.or (i32.lt_u (i32.sub (local.get $h) (i32.const 0x30)) (i32.const 10))
                    (i32.lt_u (i32.sub (i32.or (local.get $h) (i32.const 0x20)) (i32.const 0x61)) (i32.const 6))))
        (then (return (i32.const 0))))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br_if $hex (i32.lt_u (local.get $k) (i32.const 6))))
    ;; \u0020 to \u007f: printable ASCII (and DEL) written the long way
    (if (i32.and
          (i32.and (i32.eq (i32.load8_u offset=2 (local.get $p)) (i32.const 0x30))
                   (i32.eq (i32.load8_u offset=3 (local.get $p)) (i32.const 0x30)))
          (i32.lt_u (i32.sub (i32.load8_u offset=4 (local.get $p)) (i32.const 0x32)) (i32.const 6)))
      (then (return (i32.const 0))))
    ;; \u000a or \u000A: a line break too
    (if (i32.and
          (i32.eq (i32.load16_u offset=2 (local.get $p)) (i32.const 0x3030))
          (i32.and (i32.eq (i32.load8_u offset=4 (local.get $p)) (i32.const 0x30))
                   (i32.eq (i32.or (i32.load8_u offset=5 (local.get $p)) (i32.const 0x20)) (i32.const 0x61))))
      (then (global.set $newlines (i32.add (global.get $newlines) (i32.const 1)))))
    (i32.const 6))

  ;; The neighbour tests of the secret trigger anchored on byte `c` at `p` (redact-text.ts `anchored`,
  ;; ported: necessary conditions only). The string starts at `start`.
  (func $anchored (param $p i32) (param $start i32) (param $c i32) (result i32)
    (local $b1 i32) (local $b2 i32) (local $next i32)
    (local.set $b1 (i32.const 256))
    (local.set $b2 (i32.const 256))
    (if (i32.ge_s (i32.sub (local.get $p) (i32.const 1)) (local.get $start))
      (then (local.set $b1 (i32.load8_u (i32.sub (local.get $p) (i32.const 1))))))
    (if (i32.ge_s (i32.sub (local.get $p) (i32.const 2)) (local.get $start))
      (then (local.set $b2 (i32.load8_u (i32.sub (local.get $p) (i32.const 2))))))
    (local.set $next (i32.load8_u offset=1 (local.get $p)))
    ;; _ : gh?_, github_, sk_, rk_, npm_, hf_, do?_
    (if (i32.eq (local.get $c) (i32.const 0x5f))
      (then (return (i32.and (call $in (local.get $b1) (i32.const 0)) (call $in (local.get $b2) (i32.const 1))))))
    ;; - : a final `-` (the closing quote next), --, …t-, sk-, xox?-, pypi-, xapp-
    (if (i32.eq (local.get $c) (i32.const 0x2d))
      (then (return
        (i32.or
          (i32.or (i32.or (i32.eq (local.get $next) (i32.const 0x22)) (i32.eq (local.get $next) (i32.const 0x2d)))
                  (i32.or (i32.eq (local.get $b1) (i32.const 0x74))
                          (i32.and (i32.eq (local.get $b1) (i32.const 0x6b)) (i32.eq (local.get $b2) (i32.const 0x73)))))
          (i32.or (i32.and (call $in (local.get $b1) (i32.const 2)) (i32.eq (local.get $b2) (i32.const 0x78)))
                  (i32.and (call $in (local.get $b1) (i32.const 3)) (i32.eq (local.get $b2) (i32.const 0x70))))))))
    ;; . : hooks., hvs., ya29.
    (if (i32.eq (local.get $c) (i32.const 0x2e))
      (then (return
        (i32.or (i32.and (i32.eq (local.get $b1) (i32.const 0x73)) (call $in (local.get $b2) (i32.const 4)))
                (i32.and (i32.eq (local.get $b1) (i32.const 0x39)) (i32.eq (local.get $b2) (i32.const 0x32)))))))
    ;; J : eyJ
    (if (i32.eq (local.get $c) (i32.const 0x4a))
      (then (return (i32.and (i32.eq (local.get $b1) (i32.const 0x79)) (i32.eq (local.get $b2) (i32.const 0x65))))))
    ;; : : ://
    (if (i32.eq (local.get $c) (i32.const 0x3a))
      (then (return (i32.eq (local.get $next) (i32.const 0x2f)))))
    ;; = : after A-Z, 0-9 or _ (an upper-case key name)
    (if (i32.eq (local.get $c) (i32.const 0x3d))
      (then (return
        (i32.or (i32.or (i32.lt_u (i32.sub (local.get $b1) (i32.const 0x41)) (i32.const 26))
                        (i32.lt_u (i32.sub (local.get $b1) (i32.const 0x30)) (i32.const 10)))
                (i32.eq (local.get $b1) (i32.const 0x5f))))))
    ;; A : AKIA, ASIA, ABIA, ACCA, A3T, AIza
    (if (i32.eq (local.get $c) (i32.const 0x41))
      (then (return (call $in (local.get $next) (i32.const 7)))))
    ;; z : uthorization
    (if (i32.eq (local.get $c) (i32.const 0x7a))
      (then (return (i32.and (i32.eq (local.get $b1) (i32.const 0x69)) (i32.eq (local.get $next) (i32.const 0x61))))))
    ;; w, W : aws
    (i32.and (call $in (local.get $b1) (i32.const 5)) (call $in (local.get $next) (i32.const 6))))

  ;; The special bytes of the 16 at `at`, one bit each (see $scan for the tables `lo` and `hi`).
  (func $classify (param $at i32) (param $lo v128) (param $hi v128) (param $anchors i32) (result i32)
    (local $v v128) (local $class v128) (local $before v128)
    (local.set $v (v128.load (local.get $at)))
    (local.set $class
      (v128.and
        (i8x16.swizzle (local.get $lo) (v128.and (local.get $v) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
        (i8x16.swizzle (local.get $hi) (i8x16.shr_u (local.get $v) (i32.const 4)))))
    ;; The anchors most common in text whose neighbours rule them out are dropped here: `w` and `W` not
    ;; between `a`/`A` and `s`/`S`, `=` not after A-Z, 0-9 or `_` (kept after any of 0x30-0x5f). The bytes
    ;; before and after are read as they are (the byte before the string is not the string's): that can
    ;; only keep more anchors for the scalar test to reject.
    (if (local.get $anchors)
      (then
        (local.set $before (v128.load (i32.sub (local.get $at) (i32.const 1))))
        (local.set $class
          (v128.andnot
            (local.get $class)
            (v128.or
              (v128.and
                (i8x16.eq (v128.or (local.get $v) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32))
                          (v128.const i8x16 0x77 0x77 0x77 0x77 0x77 0x77 0x77 0x77 0x77 0x77 0x77 0x77 0x77 0x77 0x77 0x77))
                (v128.not
                  (v128.and
                    (i8x16.eq (v128.or (local.get $before) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32))
                              (v128.const i8x16 0x61 0x61 0x61 0x61 0x61 0x61 0x61 0x61 0x61 0x61 0x61 0x61 0x61 0x61 0x61 0x61))
                    (i8x16.eq (v128.or (v128.load offset=1 (local.get $at)) (v128.const i8x16 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32 32))
                              (v128.const i8x16 0x73 0x73 0x73 0x73 0x73 0x73 0x73 0x73 0x73 0x73 0x73 0x73 0x73 0x73 0x73 0x73)))))
              (v128.and
                (i8x16.eq (local.get $v) (v128.const i8x16 0x3d 0x3d 0x3d 0x3d 0x3d 0x3d 0x3d 0x3d 0x3d 0x3d 0x3d 0x3d 0x3d 0x3d 0x3d 0x3d))
                (i8x16.ge_u (i8x16.sub (local.get $before) (v128.const i8x16 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30))
                            (v128.const i8x16 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30 0x30))))))))
    ;; bitmask takes each byte's top bit: make any non-zero class byte all ones first
    (i8x16.bitmask (i8x16.ne (local.get $class) (v128.const i64x2 0 0))))

  ;; Scans the string whose text starts at `start` from `from` (absolute addresses): the address of its
  ;; closing quote, -1 on a raw control byte (the sentinel included) or a bad escape, -2 when HITS is full
  ;; (scan on from `resumeAt`; the line breaks are counted from the string's start). With `anchors` not 0 the secret check's anchors are tested on the way and
  ;; those that pass are recorded at HITS (`hits` of them, counted from this call).
  ;;
  ;; Each 64-byte block is classified, 16 bytes at a time, by two table lookups (`swizzle`) on its bytes' low and high halves,
  ;; whose AND is not 0 exactly for `"`, `\`, bytes below 0x20 and (with anchors) `_ - . : = J A z w W`.
  ;; Bits, with anchors: 0 below 0x20 | 1 `" - .` | 2 `: =` | 3 `A J` | 4 `W \ _` | 5 `w z`;
  ;; without: 0 below 0x20 | 1 `"` | 2 `\`.
  (func (export "scan") (param $start i32) (param $from i32) (param $anchors i32) (result i32)
    (local $lo v128) (local $hi v128) (local $mask i64) (local $k i32) (local $p i32) (local $c i32) (local $step i32)
    (global.set $hits (i32.const 0))
    (if (i32.eq (local.get $from) (local.get $start)) (then (global.set $newlines (i32.const 0))))
    (if (local.get $anchors)
      (then
        (local.set $lo (v128.const i8x16 1 9 3 1 1 1 1 49 1 1 45 1 17 7 3 17))
        (local.set $hi (v128.const i8x16 1 1 2 4 8 16 0 32 0 0 0 0 0 0 0 0)))
      (else
        (local.set $lo (v128.const i8x16 1 1 3 1 1 1 1 1 1 1 1 1 5 1 1 1))
        (local.set $hi (v128.const i8x16 1 1 2 0 0 4 0 0 0 0 0 0 0 0 0 0))))
    (loop $block
      (local.set $mask
        (i64.or
          (i64.or
            (i64.extend_i32_u (call $classify (local.get $from) (local.get $lo) (local.get $hi) (local.get $anchors)))
            (i64.shl (i64.extend_i32_u (call $classify (i32.add (local.get $from) (i32.const 16)) (local.get $lo) (local.get $hi) (local.get $anchors)))
                     (i64.const 16)))
          (i64.or
            (i64.shl (i64.extend_i32_u (call $classify (i32.add (local.get $from) (i32.const 32)) (local.get $lo) (local.get $hi) (local.get $anchors)))
                     (i64.const 32))
            (i64.shl (i64.extend_i32_u (call $classify (i32.add (local.get $from) (i32.const 48)) (local.get $lo) (local.get $hi) (local.get $anchors)))
                     (i64.const 48)))))
      (if (i64.eqz (local.get $mask))
        (then
          (local.set $from (i32.add (local.get $from) (i32.const 64)))
          (br $block)))
      ;; The block's special bytes in order.
      (loop $byte
        (local.set $k (i32.wrap_i64 (i64.ctz (local.get $mask))))
        (local.set $p (i32.add (local.get $from) (local.get $k)))
        (local.set $c (i32.load8_u (local.get $p)))
        (if (i32.eq (local.get $c) (i32.const 0x5c))
          (then
            (local.set $step (call $escape (local.get $p)))
            (if (i32.eqz (local.get $step)) (then (return (i32.const -1))))
            (local.set $k (i32.add (local.get $k) (local.get $step)))
            ;; an escape that ends past the block: scan on from its end
            (if (i32.gt_u (local.get $k) (i32.const 64))
              (then
                (local.set $from (i32.add (local.get $from) (local.get $k)))
                (br $block)))
            ;; else pass over its bytes in this block's mask (a shift by 64 is one by 0 in WebAssembly)
            (local.set $mask
              (select (i64.const 0) (i64.and (local.get $mask) (i64.shl (i64.const -1) (i64.extend_i32_u (local.get $k))))
                      (i32.eq (local.get $k) (i32.const 64))))
            (br_if $byte (i64.ne (local.get $mask) (i64.const 0)))
            (local.set $from (i32.add (local.get $from) (i32.const 64)))
            (br $block)))
        (if (i32.eq (local.get $c) (i32.const 0x22)) (then (return (local.get $p))))
        (if (i32.lt_u (local.get $c) (i32.const 0x20)) (then (return (i32.const -1))))
        (if (call $anchored (local.get $p) (local.get $start) (local.get $c))
          (then
            (i32.store (i32.add (global.get $HITS) (i32.shl (global.get $hits) (i32.const 2))) (local.get $p))
            (global.set $hits (i32.add (global.get $hits) (i32.const 1)))
            (if (i32.eq (global.get $hits) (global.get $HIT_CAP))
              (then
                (global.set $resume (i32.add (local.get $p) (i32.const 1)))
                (return (i32.const -2))))))
        (local.set $mask (i64.and (local.get $mask) (i64.sub (local.get $mask) (i64.const 1))))
        (br_if $byte (i64.ne (local.get $mask) (i64.const 0))))
      (local.set $from (i32.add (local.get $from) (i32.const 64)))
      (br $block))
    (unreachable))
)
