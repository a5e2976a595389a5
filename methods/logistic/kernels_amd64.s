//go:build !noasm && !gccgo && !safe

#include "textflag.h"

// ROWOFF sets AX to the byte offset 8·C·ind[k] of a non-zero's C-vector,
// off the byte offset of the int32 index from ind[R13] (SI ind, R13 k,
// R9 8·C).
#define ROWOFF(off) MOVLQSX off(SI)(R13*4), AX; IMULQ R9, AX

// func gatherAVX2(r []float64, ind []int32, val []float64, W []float64, C int)
//
// r[:C] += Σ_k val[k]·W[ind[k]·C : ind[k]·C+C], column block by column
// block: 16 columns in eight accumulators (two non-zeros per step), then 4
// columns in two, then one column at a time. Registers: DI r, SI ind, BX
// len(ind), DX val, R8 W, CX C, R9 8·C, R10 the block's first column, R11
// &r[R10], R12 &W[R10], R13 k.
TEXT ·gatherAVX2(SB), NOSPLIT, $0-104
	MOVQ r_base+0(FP), DI
	MOVQ ind_base+24(FP), SI
	MOVQ ind_len+32(FP), BX
	MOVQ val_base+48(FP), DX
	MOVQ W_base+72(FP), R8
	MOVQ C+96(FP), CX
	MOVQ CX, R9
	SHLQ $3, R9
	XORQ R10, R10

g16:
	LEAQ 16(R10), AX
	CMPQ AX, CX
	JGT  g4
	LEAQ (DI)(R10*8), R11
	LEAQ (R8)(R10*8), R12
	VMOVUPD 0(R11), Y4
	VMOVUPD 32(R11), Y5
	VMOVUPD 64(R11), Y6
	VMOVUPD 96(R11), Y7
	VXORPD  Y8, Y8, Y8
	VXORPD  Y9, Y9, Y9
	VXORPD  Y10, Y10, Y10
	VXORPD  Y11, Y11, Y11
	XORQ R13, R13

g16pair:
	LEAQ 1(R13), AX
	CMPQ AX, BX
	JGE  g16one
	ROWOFF(0)
	VBROADCASTSD (DX)(R13*8), Y0
	VFMADD231PD  0(R12)(AX*1), Y0, Y4
	VFMADD231PD  32(R12)(AX*1), Y0, Y5
	VFMADD231PD  64(R12)(AX*1), Y0, Y6
	VFMADD231PD  96(R12)(AX*1), Y0, Y7
	ROWOFF(4)
	VBROADCASTSD 8(DX)(R13*8), Y1
	VFMADD231PD  0(R12)(AX*1), Y1, Y8
	VFMADD231PD  32(R12)(AX*1), Y1, Y9
	VFMADD231PD  64(R12)(AX*1), Y1, Y10
	VFMADD231PD  96(R12)(AX*1), Y1, Y11
	ADDQ $2, R13
	JMP  g16pair

g16one:
	CMPQ R13, BX
	JGE  g16store
	ROWOFF(0)
	VBROADCASTSD (DX)(R13*8), Y0
	VFMADD231PD  0(R12)(AX*1), Y0, Y4
	VFMADD231PD  32(R12)(AX*1), Y0, Y5
	VFMADD231PD  64(R12)(AX*1), Y0, Y6
	VFMADD231PD  96(R12)(AX*1), Y0, Y7

g16store:
	VADDPD  Y8, Y4, Y4
	VADDPD  Y9, Y5, Y5
	VADDPD  Y10, Y6, Y6
	VADDPD  Y11, Y7, Y7
	VMOVUPD Y4, 0(R11)
	VMOVUPD Y5, 32(R11)
	VMOVUPD Y6, 64(R11)
	VMOVUPD Y7, 96(R11)
	ADDQ $16, R10
	JMP  g16

g4:
	LEAQ 4(R10), AX
	CMPQ AX, CX
	JGT  g1
	LEAQ (DI)(R10*8), R11
	LEAQ (R8)(R10*8), R12
	VMOVUPD 0(R11), Y4
	VXORPD  Y8, Y8, Y8
	XORQ R13, R13

g4pair:
	LEAQ 1(R13), AX
	CMPQ AX, BX
	JGE  g4one
	ROWOFF(0)
	VBROADCASTSD (DX)(R13*8), Y0
	VFMADD231PD  0(R12)(AX*1), Y0, Y4
	ROWOFF(4)
	VBROADCASTSD 8(DX)(R13*8), Y1
	VFMADD231PD  0(R12)(AX*1), Y1, Y8
	ADDQ $2, R13
	JMP  g4pair

g4one:
	CMPQ R13, BX
	JGE  g4store
	ROWOFF(0)
	VBROADCASTSD (DX)(R13*8), Y0
	VFMADD231PD  0(R12)(AX*1), Y0, Y4

g4store:
	VADDPD  Y8, Y4, Y4
	VMOVUPD Y4, 0(R11)
	ADDQ $4, R10
	JMP  g4

g1:
	CMPQ R10, CX
	JGE  gdone
	LEAQ (R8)(R10*8), R12
	VMOVSD (DI)(R10*8), X4
	XORQ R13, R13

g1loop:
	CMPQ R13, BX
	JGE  g1store
	ROWOFF(0)
	VMOVSD      (DX)(R13*8), X0
	VFMADD231SD (R12)(AX*1), X0, X4
	INCQ R13
	JMP  g1loop

g1store:
	VMOVSD X4, (DI)(R10*8)
	INCQ   R10
	JMP    g1

gdone:
	VZEROUPPER
	RET

// func scatterAVX2(G []float64, ind []int32, val []float64, r []float64, a float64, C int)
//
// G[ind[k]·C : ind[k]·C+C] += val[k]·(a·r[:C]) for every k, column block by
// column block (16, then 4, then 1), a·r's block held in registers.
// Registers: DI G, SI ind, BX len(ind), DX val, R8 r, CX C, R9 8·C, R10 the
// block's first column, R12 &G[R10], R13 k.
TEXT ·scatterAVX2(SB), NOSPLIT, $0-112
	MOVQ G_base+0(FP), DI
	MOVQ ind_base+24(FP), SI
	MOVQ ind_len+32(FP), BX
	MOVQ val_base+48(FP), DX
	MOVQ r_base+72(FP), R8
	MOVQ C+104(FP), CX
	MOVQ CX, R9
	SHLQ $3, R9
	VBROADCASTSD a+96(FP), Y1
	XORQ R10, R10

s16:
	LEAQ 16(R10), AX
	CMPQ AX, CX
	JGT  s4
	LEAQ   (R8)(R10*8), R11
	VMULPD 0(R11), Y1, Y4
	VMULPD 32(R11), Y1, Y5
	VMULPD 64(R11), Y1, Y6
	VMULPD 96(R11), Y1, Y7
	LEAQ   (DI)(R10*8), R12
	XORQ   R13, R13

s16loop:
	CMPQ R13, BX
	JGE  s16next
	ROWOFF(0)
	ADDQ  R12, AX
	VBROADCASTSD (DX)(R13*8), Y0
	VMOVUPD     0(AX), Y8
	VMOVUPD     32(AX), Y9
	VMOVUPD     64(AX), Y10
	VMOVUPD     96(AX), Y11
	VFMADD231PD Y4, Y0, Y8
	VFMADD231PD Y5, Y0, Y9
	VFMADD231PD Y6, Y0, Y10
	VFMADD231PD Y7, Y0, Y11
	VMOVUPD     Y8, 0(AX)
	VMOVUPD     Y9, 32(AX)
	VMOVUPD     Y10, 64(AX)
	VMOVUPD     Y11, 96(AX)
	INCQ R13
	JMP  s16loop

s16next:
	ADDQ $16, R10
	JMP  s16

s4:
	LEAQ 4(R10), AX
	CMPQ AX, CX
	JGT  s1
	VMULPD (R8)(R10*8), Y1, Y4
	LEAQ   (DI)(R10*8), R12
	XORQ   R13, R13

s4loop:
	CMPQ R13, BX
	JGE  s4next
	ROWOFF(0)
	ADDQ  R12, AX
	VBROADCASTSD (DX)(R13*8), Y0
	VMOVUPD     (AX), Y8
	VFMADD231PD Y4, Y0, Y8
	VMOVUPD     Y8, (AX)
	INCQ R13
	JMP  s4loop

s4next:
	ADDQ $4, R10
	JMP  s4

s1:
	CMPQ R10, CX
	JGE  sdone
	VMULSD (R8)(R10*8), X1, X4
	LEAQ   (DI)(R10*8), R12
	XORQ   R13, R13

s1loop:
	CMPQ R13, BX
	JGE  s1next
	ROWOFF(0)
	ADDQ  R12, AX
	VMOVSD      (DX)(R13*8), X0
	VMOVSD      (AX), X8
	VFMADD231SD X4, X0, X8
	VMOVSD      X8, (AX)
	INCQ R13
	JMP  s1loop

s1next:
	INCQ R10
	JMP  s1

sdone:
	VZEROUPPER
	RET
