//go:build !noasm && !gccgo && !safe

#include "textflag.h"

// AVX2 and FMA kernels for the O(n) passes of L-BFGS (see kernels.go),
// called when haveAsm is true. Most process 16 elements per iteration in
// four 256-bit registers, with four accumulators for each reduction (push,
// trial and maxAbsDiv: 8 in two), then 4 elements, then single elements.
// Each reduction sums its accumulators before the single-element tail,
// which adds into the low lane.

// ZERO4 clears the four partial sums Y0–Y3.
#define ZERO4 \
	VXORPD Y0, Y0, Y0 \
	VXORPD Y1, Y1, Y1 \
	VXORPD Y2, Y2, Y2 \
	VXORPD Y3, Y3, Y3

// SUM4 adds the partial sums Y0–Y3 into X0, overwriting Y1–Y3.
#define SUM4 \
	VADDPD       Y1, Y0, Y0 \
	VADDPD       Y3, Y2, Y2 \
	VADDPD       Y2, Y0, Y0 \
	VEXTRACTF128 $1, Y0, X1 \
	VADDPD       X1, X0, X0 \
	VUNPCKHPD    X0, X0, X1 \
	VADDSD       X1, X0, X0

// ACC4(p) adds the products of Y4–Y7 with the 16 elements at p[AX:] to the
// partial sums Y0–Y3.
#define ACC4(p) \
	VFMADD231PD (p)(AX*8), Y4, Y0   \
	VFMADD231PD 32(p)(AX*8), Y5, Y1 \
	VFMADD231PD 64(p)(AX*8), Y6, Y2 \
	VFMADD231PD 96(p)(AX*8), Y7, Y3

// func axpbyDotAsm(dst, x []float64, c, b float64, y, z []float64) (dot float64)
TEXT ·axpbyDotAsm(SB), NOSPLIT, $0
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), CX
	MOVQ         x_base+24(FP), SI
	VBROADCASTSD c+48(FP), Y14
	VBROADCASTSD b+56(FP), Y15
	MOVQ         y_base+64(FP), DX
	MOVQ         z_base+88(FP), R8

	ZERO4
	XORQ   AX, AX     // i = 0
	MOVQ   CX, BX
	ANDQ   $-16, BX   // BX = n rounded down to 16
	JZ     axpby_quads

axpby_loop16:
	// dst[i:i+16] = c*x[i:i+16] + b*y[i:i+16]; sum += z*dst
	VMULPD      (SI)(AX*8), Y14, Y4
	VMULPD      32(SI)(AX*8), Y14, Y5
	VMULPD      64(SI)(AX*8), Y14, Y6
	VMULPD      96(SI)(AX*8), Y14, Y7
	VFMADD231PD (DX)(AX*8), Y15, Y4
	VFMADD231PD 32(DX)(AX*8), Y15, Y5
	VFMADD231PD 64(DX)(AX*8), Y15, Y6
	VFMADD231PD 96(DX)(AX*8), Y15, Y7
	VMOVUPD     Y4, (DI)(AX*8)
	VMOVUPD     Y5, 32(DI)(AX*8)
	VMOVUPD     Y6, 64(DI)(AX*8)
	VMOVUPD     Y7, 96(DI)(AX*8)
	ACC4(R8)
	ADDQ        $16, AX
	CMPQ        AX, BX
	JL          axpby_loop16

axpby_quads:
	MOVQ CX, BX
	ANDQ $-4, BX // BX = n rounded down to 4
	CMPQ AX, BX
	JGE  axpby_reduce

axpby_loop4:
	VMULPD      (SI)(AX*8), Y14, Y4
	VFMADD231PD (DX)(AX*8), Y15, Y4
	VMOVUPD     Y4, (DI)(AX*8)
	VFMADD231PD (R8)(AX*8), Y4, Y0
	ADDQ        $4, AX
	CMPQ        AX, BX
	JL          axpby_loop4

axpby_reduce:
	SUM4
	CMPQ         AX, CX
	JGE          axpby_end

axpby_tail:
	VMULSD      (SI)(AX*8), X14, X4
	VFMADD231SD (DX)(AX*8), X15, X4
	VMOVSD      X4, (DI)(AX*8)
	VFMADD231SD (R8)(AX*8), X4, X0
	INCQ        AX
	CMPQ        AX, CX
	JL          axpby_tail

axpby_end:
	VMOVSD     X0, dot+112(FP)
	VZEROUPPER
	RET

// func dotAsm(x, y []float64) (dot float64)
TEXT ·dotAsm(SB), NOSPLIT, $0
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ y_base+24(FP), DX

	ZERO4
	XORQ   AX, AX
	MOVQ   CX, BX
	ANDQ   $-16, BX
	JZ     dot_quads

dot_loop16:
	VMOVUPD     (SI)(AX*8), Y4
	VMOVUPD     32(SI)(AX*8), Y5
	VMOVUPD     64(SI)(AX*8), Y6
	VMOVUPD     96(SI)(AX*8), Y7
	ACC4(DX)
	ADDQ        $16, AX
	CMPQ        AX, BX
	JL          dot_loop16

dot_quads:
	MOVQ CX, BX
	ANDQ $-4, BX
	CMPQ AX, BX
	JGE  dot_reduce

dot_loop4:
	VMOVUPD     (SI)(AX*8), Y4
	VFMADD231PD (DX)(AX*8), Y4, Y0
	ADDQ        $4, AX
	CMPQ        AX, BX
	JL          dot_loop4

dot_reduce:
	SUM4
	CMPQ         AX, CX
	JGE          dot_end

dot_tail:
	VMOVSD      (SI)(AX*8), X4
	VFMADD231SD (DX)(AX*8), X4, X0
	INCQ        AX
	CMPQ        AX, CX
	JL          dot_tail

dot_end:
	VMOVSD     X0, dot+48(FP)
	VZEROUPPER
	RET

// func pushAsm(s, y, xp, x, gp, g []float64) (sy, yy, sgp float64)
TEXT ·pushAsm(SB), NOSPLIT, $0
	MOVQ s_base+0(FP), DI
	MOVQ s_len+8(FP), CX
	MOVQ y_base+24(FP), SI
	MOVQ xp_base+48(FP), DX
	MOVQ x_base+72(FP), R8
	MOVQ gp_base+96(FP), R9
	MOVQ g_base+120(FP), R10

	VXORPD Y0, Y0, Y0 // sᵀy, two partial sums: Y0, Y3
	VXORPD Y1, Y1, Y1 // yᵀy: Y1, Y4
	VXORPD Y2, Y2, Y2 // sᵀgp: Y2, Y5
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	XORQ   AX, AX
	MOVQ   CX, BX
	ANDQ   $-8, BX
	JZ     push_quads

push_loop8:
	// s = xp − x, y = gp − g
	VMOVUPD     (DX)(AX*8), Y6
	VMOVUPD     32(DX)(AX*8), Y7
	VSUBPD      (R8)(AX*8), Y6, Y6
	VSUBPD      32(R8)(AX*8), Y7, Y7
	VMOVUPD     (R9)(AX*8), Y8
	VMOVUPD     32(R9)(AX*8), Y9
	VSUBPD      (R10)(AX*8), Y8, Y10
	VSUBPD      32(R10)(AX*8), Y9, Y11
	VMOVUPD     Y6, (DI)(AX*8)
	VMOVUPD     Y7, 32(DI)(AX*8)
	VMOVUPD     Y10, (SI)(AX*8)
	VMOVUPD     Y11, 32(SI)(AX*8)
	VFMADD231PD Y10, Y6, Y0
	VFMADD231PD Y11, Y7, Y3
	VFMADD231PD Y10, Y10, Y1
	VFMADD231PD Y11, Y11, Y4
	VFMADD231PD Y8, Y6, Y2
	VFMADD231PD Y9, Y7, Y5
	ADDQ        $8, AX
	CMPQ        AX, BX
	JL          push_loop8

push_quads:
	VADDPD Y3, Y0, Y0
	VADDPD Y4, Y1, Y1
	VADDPD Y5, Y2, Y2
	MOVQ   CX, BX
	ANDQ   $-4, BX
	CMPQ   AX, BX
	JGE    push_reduce

	VMOVUPD     (DX)(AX*8), Y6
	VSUBPD      (R8)(AX*8), Y6, Y6
	VMOVUPD     (R9)(AX*8), Y8
	VSUBPD      (R10)(AX*8), Y8, Y10
	VMOVUPD     Y6, (DI)(AX*8)
	VMOVUPD     Y10, (SI)(AX*8)
	VFMADD231PD Y10, Y6, Y0
	VFMADD231PD Y10, Y10, Y1
	VFMADD231PD Y8, Y6, Y2
	ADDQ        $4, AX

push_reduce:
	VEXTRACTF128 $1, Y0, X3
	VEXTRACTF128 $1, Y1, X4
	VEXTRACTF128 $1, Y2, X5
	VADDPD       X3, X0, X0
	VADDPD       X4, X1, X1
	VADDPD       X5, X2, X2
	VUNPCKHPD    X0, X0, X3
	VUNPCKHPD    X1, X1, X4
	VUNPCKHPD    X2, X2, X5
	VADDSD       X3, X0, X0
	VADDSD       X4, X1, X1
	VADDSD       X5, X2, X2
	CMPQ         AX, CX
	JGE          push_end

push_tail:
	VMOVSD      (DX)(AX*8), X6
	VSUBSD      (R8)(AX*8), X6, X6
	VMOVSD      (R9)(AX*8), X8
	VSUBSD      (R10)(AX*8), X8, X10
	VMOVSD      X6, (DI)(AX*8)
	VMOVSD      X10, (SI)(AX*8)
	VFMADD231SD X10, X6, X0
	VFMADD231SD X10, X10, X1
	VFMADD231SD X8, X6, X2
	INCQ        AX
	CMPQ        AX, CX
	JL          push_tail

push_end:
	VMOVSD     X0, sy+144(FP)
	VMOVSD     X1, yy+152(FP)
	VMOVSD     X2, sgp+160(FP)
	VZEROUPPER
	RET

// func trialAsm(xt, x []float64, step float64, d []float64) (moved bool)
TEXT ·trialAsm(SB), NOSPLIT, $0
	MOVQ         xt_base+0(FP), DI
	MOVQ         xt_len+8(FP), CX
	MOVQ         x_base+24(FP), SI
	VBROADCASTSD step+48(FP), Y15
	MOVQ         d_base+56(FP), DX

	VXORPD Y12, Y12, Y12 // lanes where xt ≠ x
	VXORPD Y13, Y13, Y13
	XORQ   AX, AX
	MOVQ   CX, BX
	ANDQ   $-8, BX
	JZ     trial_quads

trial_loop8:
	// xt = x + step*d, rounding the product as Go does (no FMA)
	VMOVUPD (SI)(AX*8), Y0
	VMOVUPD 32(SI)(AX*8), Y1
	VMULPD  (DX)(AX*8), Y15, Y2
	VMULPD  32(DX)(AX*8), Y15, Y3
	VADDPD  Y0, Y2, Y2
	VADDPD  Y1, Y3, Y3
	VMOVUPD Y2, (DI)(AX*8)
	VMOVUPD Y3, 32(DI)(AX*8)
	VCMPPD  $4, Y0, Y2, Y4 // NEQ_UQ: a NaN differs
	VCMPPD  $4, Y1, Y3, Y5
	VORPD   Y4, Y12, Y12
	VORPD   Y5, Y13, Y13
	ADDQ    $8, AX
	CMPQ    AX, BX
	JL      trial_loop8

trial_quads:
	VORPD Y13, Y12, Y12
	MOVQ  CX, BX
	ANDQ  $-4, BX
	CMPQ  AX, BX
	JGE   trial_reduce

	VMOVUPD (SI)(AX*8), Y0
	VMULPD  (DX)(AX*8), Y15, Y2
	VADDPD  Y0, Y2, Y2
	VMOVUPD Y2, (DI)(AX*8)
	VCMPPD  $4, Y0, Y2, Y4
	VORPD   Y4, Y12, Y12
	ADDQ    $4, AX

trial_reduce:
	VMOVMSKPD Y12, R11
	CMPQ      AX, CX
	JGE       trial_end

trial_tail:
	VMOVSD    (SI)(AX*8), X0
	VMULSD    (DX)(AX*8), X15, X2
	VADDSD    X0, X2, X2
	VMOVSD    X2, (DI)(AX*8)
	VCMPSD    $4, X0, X2, X4
	VMOVMSKPD X4, R12
	ANDQ      $1, R12
	ORQ       R12, R11
	INCQ      AX
	CMPQ      AX, CX
	JL        trial_tail

trial_end:
	TESTQ      R11, R11
	SETNE      moved+80(FP)
	VZEROUPPER
	RET

// func steepestAsm(dst, g []float64) (dg float64)
TEXT ·steepestAsm(SB), NOSPLIT, $0
	MOVQ         dst_base+0(FP), DI
	MOVQ         dst_len+8(FP), CX
	MOVQ         g_base+24(FP), SI
	MOVQ         $0x8000000000000000, R11
	MOVQ         R11, X15
	VBROADCASTSD X15, Y15 // sign bits

	ZERO4
	XORQ   AX, AX
	MOVQ   CX, BX
	ANDQ   $-16, BX
	JZ     steepest_quads

steepest_loop16:
	// dst = −g, sum += g*g
	VMOVUPD     (SI)(AX*8), Y4
	VMOVUPD     32(SI)(AX*8), Y5
	VMOVUPD     64(SI)(AX*8), Y6
	VMOVUPD     96(SI)(AX*8), Y7
	VFMADD231PD Y4, Y4, Y0
	VFMADD231PD Y5, Y5, Y1
	VFMADD231PD Y6, Y6, Y2
	VFMADD231PD Y7, Y7, Y3
	VXORPD      Y15, Y4, Y4
	VXORPD      Y15, Y5, Y5
	VXORPD      Y15, Y6, Y6
	VXORPD      Y15, Y7, Y7
	VMOVUPD     Y4, (DI)(AX*8)
	VMOVUPD     Y5, 32(DI)(AX*8)
	VMOVUPD     Y6, 64(DI)(AX*8)
	VMOVUPD     Y7, 96(DI)(AX*8)
	ADDQ        $16, AX
	CMPQ        AX, BX
	JL          steepest_loop16

steepest_quads:
	MOVQ CX, BX
	ANDQ $-4, BX
	CMPQ AX, BX
	JGE  steepest_reduce

steepest_loop4:
	VMOVUPD     (SI)(AX*8), Y4
	VFMADD231PD Y4, Y4, Y0
	VXORPD      Y15, Y4, Y4
	VMOVUPD     Y4, (DI)(AX*8)
	ADDQ        $4, AX
	CMPQ        AX, BX
	JL          steepest_loop4

steepest_reduce:
	SUM4
	CMPQ         AX, CX
	JGE          steepest_end

steepest_tail:
	VMOVSD      (SI)(AX*8), X4
	VFMADD231SD X4, X4, X0
	VXORPD      X15, X4, X4
	VMOVSD      X4, (DI)(AX*8)
	INCQ        AX
	CMPQ        AX, CX
	JL          steepest_tail

steepest_end:
	VXORPD     X15, X0, X0 // dg = −sum
	VMOVSD     X0, dg+48(FP)
	VZEROUPPER
	RET

// func maxAbsAsm(x []float64) (m float64, nan bool)
TEXT ·maxAbsAsm(SB), NOSPLIT, $0
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	MOVQ         $0x7fffffffffffffff, R11
	MOVQ         R11, X15
	VBROADCASTSD X15, Y15 // all but the sign bits

	ZERO4 // four partial maxima
	VXORPD Y12, Y12, Y12 // lanes that saw a NaN
	VXORPD Y13, Y13, Y13
	XORQ   AX, AX
	MOVQ   CX, BX
	ANDQ   $-16, BX
	JZ     maxabs_quads

maxabs_loop16:
	VANDPD (SI)(AX*8), Y15, Y4
	VANDPD 32(SI)(AX*8), Y15, Y5
	VANDPD 64(SI)(AX*8), Y15, Y6
	VANDPD 96(SI)(AX*8), Y15, Y7
	VCMPPD $3, Y4, Y5, Y8 // UNORD_Q: either is a NaN
	VCMPPD $3, Y6, Y7, Y9
	VORPD  Y8, Y12, Y12
	VORPD  Y9, Y13, Y13
	VMAXPD Y4, Y0, Y0
	VMAXPD Y5, Y1, Y1
	VMAXPD Y6, Y2, Y2
	VMAXPD Y7, Y3, Y3
	ADDQ   $16, AX
	CMPQ   AX, BX
	JL     maxabs_loop16

maxabs_quads:
	MOVQ CX, BX
	ANDQ $-4, BX
	CMPQ AX, BX
	JGE  maxabs_reduce

maxabs_loop4:
	VANDPD (SI)(AX*8), Y15, Y4
	VCMPPD $3, Y4, Y4, Y8
	VORPD  Y8, Y12, Y12
	VMAXPD Y4, Y0, Y0
	ADDQ   $4, AX
	CMPQ   AX, BX
	JL     maxabs_loop4

maxabs_reduce:
	VORPD        Y13, Y12, Y12
	VMOVMSKPD    Y12, R11
	VMAXPD       Y1, Y0, Y0
	VMAXPD       Y3, Y2, Y2
	VMAXPD       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMAXPD       X1, X0, X0
	VUNPCKHPD    X0, X0, X1
	VMAXSD       X1, X0, X0
	CMPQ         AX, CX
	JGE          maxabs_end

maxabs_tail:
	VMOVSD    (SI)(AX*8), X4
	VANDPD    X15, X4, X4
	VCMPSD    $3, X4, X4, X8
	VMOVMSKPD X8, R12
	ANDQ      $1, R12
	ORQ       R12, R11
	VMAXSD    X4, X0, X0
	INCQ      AX
	CMPQ      AX, CX
	JL        maxabs_tail

maxabs_end:
	VMOVSD     X0, m+24(FP)
	TESTQ      R11, R11
	SETNE      nan+32(FP)
	VZEROUPPER
	RET

// func maxAbsDivAsm(x, scale []float64) (m float64, nan bool)
TEXT ·maxAbsDivAsm(SB), NOSPLIT, $0
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	MOVQ         scale_base+24(FP), DX
	MOVQ         $0x7fffffffffffffff, R11
	MOVQ         R11, X15
	VBROADCASTSD X15, Y15

	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13
	XORQ   AX, AX
	MOVQ   CX, BX
	ANDQ   $-8, BX
	JZ     maxabsdiv_quads

maxabsdiv_loop8:
	// m = max(m, |x/scale|)
	VMOVUPD (SI)(AX*8), Y4
	VMOVUPD 32(SI)(AX*8), Y5
	VDIVPD  (DX)(AX*8), Y4, Y4
	VDIVPD  32(DX)(AX*8), Y5, Y5
	VANDPD  Y15, Y4, Y4
	VANDPD  Y15, Y5, Y5
	VCMPPD  $3, Y4, Y4, Y8
	VCMPPD  $3, Y5, Y5, Y9
	VORPD   Y8, Y12, Y12
	VORPD   Y9, Y13, Y13
	VMAXPD  Y4, Y0, Y0
	VMAXPD  Y5, Y1, Y1
	ADDQ    $8, AX
	CMPQ    AX, BX
	JL      maxabsdiv_loop8

maxabsdiv_quads:
	VORPD  Y13, Y12, Y12
	VMAXPD Y1, Y0, Y0
	MOVQ   CX, BX
	ANDQ   $-4, BX
	CMPQ   AX, BX
	JGE    maxabsdiv_reduce

	VMOVUPD (SI)(AX*8), Y4
	VDIVPD  (DX)(AX*8), Y4, Y4
	VANDPD  Y15, Y4, Y4
	VCMPPD  $3, Y4, Y4, Y8
	VORPD   Y8, Y12, Y12
	VMAXPD  Y4, Y0, Y0
	ADDQ    $4, AX

maxabsdiv_reduce:
	VMOVMSKPD    Y12, R11
	VEXTRACTF128 $1, Y0, X1
	VMAXPD       X1, X0, X0
	VUNPCKHPD    X0, X0, X1
	VMAXSD       X1, X0, X0
	CMPQ         AX, CX
	JGE          maxabsdiv_end

maxabsdiv_tail:
	VMOVSD    (SI)(AX*8), X4
	VDIVSD    (DX)(AX*8), X4, X4
	VANDPD    X15, X4, X4
	VCMPSD    $3, X4, X4, X8
	VMOVMSKPD X8, R12
	ANDQ      $1, R12
	ORQ       R12, R11
	VMAXSD    X4, X0, X0
	INCQ      AX
	CMPQ      AX, CX
	JL        maxabsdiv_tail

maxabsdiv_end:
	VMOVSD     X0, m+48(FP)
	TESTQ      R11, R11
	SETNE      nan+56(FP)
	VZEROUPPER
	RET
