;; The skimmer's check of a string it may skip (src/framing/ndjson/_skim.ts, `scanString`), 16 bytes at a
;; time with WebAssembly SIMD. Assembled by scripts/build-wasm.mjs into
;; _skim-scan.wasm.ts (committed: the build needs no assembler); _skim-native.ts runs it.
;;
;; Why hand-written: the check is JSON string syntax (escapes, no raw control byte, no printable ASCII
;; escaped, valid UTF-8) fused with a keyword check; no library scans for that set of bytes, and a JavaScript byte loop
;; is several times slower (docs/benchmarks.md). The module knows no keyword: the caller writes them, with
;; the tables that find their anchor bytes, into its memory (_skim-native.ts, from the SkipCheck it is given).
;;
;; Memory: [0, 16) and [16, 32) the low- and high-nibble tables of the anchors mode (see $scan); [32, 544)
;; per byte value a u16 address of the keywords anchored on it (0: none); [544, HITS) those keyword lists,
;; each entry `len at ignoreCase bytes...` (the byte's index in the keyword, whether letters match in either
;; case), a `len` of 0 ending a list; [HITS, HITS + 4 * HIT_CAP) where keywords were found (u32, absolute);
;; from INPUT the caller's bytes: the string's text to the end of its line, then one 0 byte, a sentinel
;; (a control byte, so a scan never reads past it: an unclosed string ends there as invalid).

(module
  (memory (export "memory") 2)

  (global $HITS i32 (i32.const 4096))
  (global $HIT_CAP i32 (i32.const 4096))
  (global $hits (mut i32) (i32.const 0))
  (global $resume (mut i32) (i32.const 0))
  ;; Line breaks written in the string (`\n`, `\u000a`), for a view that shows a long output's ends.
  (global $newlines (mut i32) (i32.const 0))

  ;; How many anchors passed in the last scan (their positions are at HITS), and where a scan stopped
  ;; because HITS was full (it returned -2: the caller takes the hits and scans on from there).
  (func (export "hits") (result i32) (global.get $hits))
  (func (export "hitsAt") (result i32) (global.get $HITS))
  (func (export "resumeAt") (result i32) (global.get $resume))
  (func (export "newlines") (result i32) (global.get $newlines))

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

;; Whether a keyword anchored on the byte at `p` is written around it (not before `start`): the
  ;; keyword lists are the caller's (see Memory).
  (func $keyword (param $p i32) (param $start i32) (result i32)
    (local $at i32) (local $len i32) (local $from i32) (local $k i32) (local $b i32) (local $w i32) (local $icase i32)
    (local.set $at (i32.load16_u offset=32 (i32.shl (i32.load8_u (local.get $p)) (i32.const 1))))
    (if (i32.eqz (local.get $at)) (then (return (i32.const 0))))
    (block $none
      (loop $entry
        (local.set $len (i32.load8_u (local.get $at)))
        (br_if $none (i32.eqz (local.get $len)))
        (local.set $from (i32.sub (local.get $p) (i32.load8_u offset=1 (local.get $at))))
        (local.set $icase (i32.load8_u offset=2 (local.get $at)))
        (block $mismatch
          (br_if $mismatch (i32.lt_s (local.get $from) (local.get $start)))
          (local.set $k (i32.const 0))
          (loop $byte
            (local.set $b (i32.load8_u (i32.add (local.get $from) (local.get $k))))
            (local.set $w (i32.load8_u offset=3 (i32.add (local.get $at) (local.get $k))))
            (if (i32.ne (local.get $b) (local.get $w))
              (then
                ;; a letter in the other case (bit 5), where case is ignored
                (br_if $mismatch
                  (i32.eqz
                    (i32.and (local.get $icase)
                      (i32.and (i32.eq (i32.or (local.get $b) (i32.const 0x20)) (i32.or (local.get $w) (i32.const 0x20)))
                               (i32.lt_u (i32.sub (i32.or (local.get $w) (i32.const 0x20)) (i32.const 0x61)) (i32.const 26))))))))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (br_if $byte (i32.lt_u (local.get $k) (local.get $len))))
          (return (i32.const 1)))
        (local.set $at (i32.add (local.get $at) (i32.add (local.get $len) (i32.const 3))))
        (br $entry)))
    (i32.const 0))

;; Whether the bytes [p, end) are valid UTF-8 (no overlong form, surrogate or value past U+10FFFF: _skim.ts
  ;; `utf8Length`), 1 or 0, 16 bytes at a time: the lookup algorithm of Keiser and Lemire ("Validating UTF-8 in less
  ;; than one instruction per byte", 2021), as simdjson writes it. Three table lookups on the high half of the byte
  ;; before, its low half and the byte's high half say what each pair of bytes may not be; the bytes two and three
  ;; after a three- and four-byte lead must be continuations. Bytes past `end` count as 0 (ASCII), and one block of
  ;; them is checked after the last, so a sequence cut by the end is an error.
  (func (export "utf8") (param $p i32) (param $end i32) (result i32)
    (local $in v128) (local $prev v128) (local $error v128) (local $n i32) (local $done i32)
    (local $b v128) (local $c v128) (local $d v128)
    ;; 64 bytes at a time while they last; a block of ASCII after ASCII is passed with one test.
    (block $tail
      (loop $wide
        (br_if $tail (i32.lt_s (i32.sub (local.get $end) (local.get $p)) (i32.const 64)))
        (local.set $in (v128.load (local.get $p)))
        (local.set $b (v128.load offset=16 (local.get $p)))
        (local.set $c (v128.load offset=32 (local.get $p)))
        (local.set $d (v128.load offset=48 (local.get $p)))
        (if (i8x16.bitmask (v128.or (v128.or (local.get $in) (local.get $b)) (v128.or (local.get $c) (local.get $d))))
          (then
            (local.set $error
              (v128.or
                (v128.or (local.get $error)
                  (v128.or (call $utf8Errors (local.get $in) (local.get $prev)) (call $utf8Errors (local.get $b) (local.get $in))))
                (v128.or (call $utf8Errors (local.get $c) (local.get $b)) (call $utf8Errors (local.get $d) (local.get $c))))))
          (else
            (if (i8x16.bitmask (local.get $prev))
              (then (local.set $error (v128.or (local.get $error) (call $utf8Errors (local.get $in) (local.get $prev))))))))
        (local.set $prev (local.get $d))
        (local.set $p (i32.add (local.get $p) (i32.const 64)))
        (br $wide)))
    ;; Then 16 at a time, the last block and one of zeros after it.
    (loop $block
      (local.set $n (i32.sub (local.get $end) (local.get $p)))
      (local.set $done (i32.le_s (local.get $n) (i32.const 0)))
      (local.set $in (select (v128.const i64x2 0 0) (v128.load (local.get $p)) (local.get $done)))
      (if (i32.lt_s (local.get $n) (i32.const 16))
        (then
          (local.set $in
            (v128.and (local.get $in)
              (i8x16.gt_s (i8x16.splat (select (local.get $n) (i32.const 0) (i32.gt_s (local.get $n) (i32.const 0))))
                          (v128.const i8x16 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15))))))
      ;; Two blocks of ASCII: nothing to check.
      (if (i32.or (i8x16.bitmask (local.get $in)) (i8x16.bitmask (local.get $prev)))
        (then
          (local.set $error
            (v128.or (local.get $error) (call $utf8Errors (local.get $in) (local.get $prev))))))
      (if (local.get $done) (then (return (i32.eqz (v128.any_true (local.get $error))))))
      (local.set $prev (local.get $in))
      (local.set $p (i32.add (local.get $p) (i32.const 16)))
      (br $block))
    (unreachable))

  ;; The error bits of the 16 bytes `in` after the 16 bytes `prev` (0 everywhere: valid so far).
  (func $utf8Errors (param $in v128) (param $prev v128) (result v128)
    (local $prev1 v128) (local $special v128) (local $must23 v128)
    (local.set $prev1 (i8x16.shuffle 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 (local.get $prev) (local.get $in)))
    ;; bits: 1 too short | 2 too long | 4 overlong 3 | 8 too large | 16 surrogate | 32 overlong 2 | 64 too large 1000 or
    ;; overlong 4 | 128 two continuations
    (local.set $special
      (v128.and
        (v128.and
          (i8x16.swizzle (v128.const i8x16 2 2 2 2 2 2 2 2 128 128 128 128 33 1 21 73) (i8x16.shr_u (local.get $prev1) (i32.const 4)))
          (i8x16.swizzle (v128.const i8x16 231 163 131 131 139 203 203 203 203 203 203 203 203 219 203 203)
                         (v128.and (local.get $prev1) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15))))
        (i8x16.swizzle (v128.const i8x16 1 1 1 1 1 1 1 1 230 174 186 186 1 1 1 1) (i8x16.shr_u (local.get $in) (i32.const 4)))))
    ;; The second and third bytes after a lead of three or four: continuations (top bit of the difference).
    (local.set $must23
      (v128.and
        (v128.or
          (i8x16.sub_sat_u (i8x16.shuffle 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 (local.get $prev) (local.get $in))
                           (v128.const i8x16 0x60 0x60 0x60 0x60 0x60 0x60 0x60 0x60 0x60 0x60 0x60 0x60 0x60 0x60 0x60 0x60))
          (i8x16.sub_sat_u (i8x16.shuffle 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 (local.get $prev) (local.get $in))
                           (v128.const i8x16 0x70 0x70 0x70 0x70 0x70 0x70 0x70 0x70 0x70 0x70 0x70 0x70 0x70 0x70 0x70 0x70)))
        (v128.const i8x16 0x80 0x80 0x80 0x80 0x80 0x80 0x80 0x80 0x80 0x80 0x80 0x80 0x80 0x80 0x80 0x80)))
    (v128.xor (local.get $must23) (local.get $special)))

  ;; The special bytes of the 16 at `at`, one bit each (see $scan for the tables `lo` and `hi`).
  (func $classify (param $at i32) (param $lo v128) (param $hi v128) (result i32)
    (local $v v128) (local $class v128)
    (local.set $v (v128.load (local.get $at)))
    (local.set $class
      (v128.and
        (i8x16.swizzle (local.get $lo) (v128.and (local.get $v) (v128.const i8x16 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15 15)))
        (i8x16.swizzle (local.get $hi) (i8x16.shr_u (local.get $v) (i32.const 4)))))
    ;; bitmask takes each byte's top bit: make any non-zero class byte all ones first
    (i8x16.bitmask (i8x16.ne (local.get $class) (v128.const i64x2 0 0))))

  ;; Scans the string whose text starts at `start` from `from` (absolute addresses): the address of its
  ;; closing quote, -1 on a raw control byte (the sentinel included) or a bad escape, -2 when HITS is full
  ;; (scan on from `resumeAt`; the line breaks are counted from the string's start). With `anchors` not 0 the
  ;; caller's keywords are looked for at their anchor bytes on the way, and where one is found its anchor is
  ;; recorded at HITS (`hits` of them, counted from this call).
  ;;
  ;; Each 64-byte block is classified, 16 bytes at a time, by two table lookups (`swizzle`) on its bytes' low
  ;; and high halves, whose AND is not 0 exactly for `"`, `\`, bytes below 0x20 and (with anchors) the anchor
  ;; bytes. Bytes from 0x80 pass: the caller checks the string's UTF-8 with `utf8` once it has its end, in one pass
  ;; that does not stop at every sequence. Without anchors the bits are: 0 below 0x20 | 1 `"` | 2 `\`; with them,
  ;; the caller's tables at 0 and 16 (_skim-native.ts `writeKeywords`).
  (func (export "scan") (param $start i32) (param $from i32) (param $anchors i32) (result i32)
    (local $lo v128) (local $hi v128) (local $mask i64) (local $k i32) (local $p i32) (local $c i32) (local $step i32)
    (global.set $hits (i32.const 0))
    (if (i32.eq (local.get $from) (local.get $start)) (then (global.set $newlines (i32.const 0))))
    (if (local.get $anchors)
      (then
        (local.set $lo (v128.load (i32.const 0)))
        (local.set $hi (v128.load (i32.const 16))))
      (else
        (local.set $lo (v128.const i8x16 1 1 3 1 1 1 1 1 1 1 1 1 5 1 1 1))
        (local.set $hi (v128.const i8x16 1 1 2 0 0 4 0 0 0 0 0 0 0 0 0 0))))
    (loop $block
      (local.set $mask
        (i64.or
          (i64.or
            (i64.extend_i32_u (call $classify (local.get $from) (local.get $lo) (local.get $hi)))
            (i64.shl (i64.extend_i32_u (call $classify (i32.add (local.get $from) (i32.const 16)) (local.get $lo) (local.get $hi)))
                     (i64.const 16)))
          (i64.or
            (i64.shl (i64.extend_i32_u (call $classify (i32.add (local.get $from) (i32.const 32)) (local.get $lo) (local.get $hi)))
                     (i64.const 32))
            (i64.shl (i64.extend_i32_u (call $classify (i32.add (local.get $from) (i32.const 48)) (local.get $lo) (local.get $hi)))
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
        ;; An escape is stepped over whole (0: invalid).
        (local.set $step (i32.const 0))
        (if (i32.eq (local.get $c) (i32.const 0x5c))
          (then
            (local.set $step (call $escape (local.get $p)))
            (if (i32.eqz (local.get $step)) (then (return (i32.const -1))))))
        (if (local.get $step)
          (then
            (local.set $k (i32.add (local.get $k) (local.get $step)))
            ;; a step that ends past the block: scan on from its end
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
        (if (call $keyword (local.get $p) (local.get $start))
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
