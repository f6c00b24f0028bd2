/* FlipFlop 5x5 with bitboards: random playouts and perft, a yardstick for flipgames' kernel.

   Build: cc -O2 -march=native -o flipflop_bitboard flipflop_bitboard.c
   (bench/bench_yardstick.py does it; -march=native gives the CPU's popcount instruction, and
   plain -O2 also works, slower)

   The rules are flipgames' (docs/games/flipflop.md, docs/rulings.md): White's five pieces on
   rank 1, Black's on rank 5, all showing the rook face; a rook face slides orthogonally and a
   bishop face diagonally, never leaping; the moved piece lands showing its other face; a move
   ends on an empty square or captures an enemy piece standing on either goal (c1, White's;
   c5, Black's), nowhere else; with an enemy piece on its own goal the side to move is in check
   and may only capture it; a side with no legal move (checkmated, blocked, no pieces) loses;
   the third occurrence of a position (pieces, faces, side to move) since the last capture is a
   draw, checked before anything else. Playouts stop at the ply cap (200) once the position
   there is not over, as the kernel's do. perft ignores repetition, as ruling R3 says.

   A position is three 25-bit masks (bit sq for square sq, a1 = 0, rank-major: b1 = 1,
   a2 = 5): White's pieces, Black's pieces, the pieces showing the bishop face. Sliding
   attacks are precomputed: rays per square and direction (the nearest blocker along a ray is
   its lowest set bit towards higher squares, its highest towards lower ones; the attack is
   the ray minus the ray beyond it) fill, at start-up, a 64-entry table per square and face
   indexed by a multiply-shift of the occupancy of the squares that can block. A random
   playout counts each piece's targets, draws one index and walks to it, listing no moves.

   Usage:
     flipflop_bitboard perft DEPTH        perft(1..DEPTH) from the start, one line each
     flipflop_bitboard perftonly DEPTH    perft(DEPTH) alone and the CPU seconds it took
     flipflop_bitboard run SECONDS SEED   random playouts for SECONDS of CPU time, with rates
     flipflop_bitboard games COUNT SEED   COUNT random games, one line each:
                                          RESULT PLIES then per ply LEGAL:ACTION, where RESULT
                                          is W or B (that side won), D (repetition) or C
                                          (stopped at the cap), LEGAL the number of legal
                                          moves and ACTION flipgames' id (from * 25 + to);
                                          the final position's LEGAL closes the line as LEGAL:-
     flipflop_bitboard line ACTION...     the game of these action ids, then random moves, in
                                          the games format (seed 0); an illegal action stops it
                                          with RESULT X and exit status 1
   Times are CPU time of this process (CLOCK_PROCESS_CPUTIME_ID). */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SIZE 5
#define AREA 25
#define CAP 200
#define MAX_MOVES 64
#define WHITE_GOAL 2  /* c1 */
#define BLACK_GOAL 22 /* c5 */
#define GOALS ((1u << WHITE_GOAL) | (1u << BLACK_GOAL))
#define RANK1 0x1Fu
#define RANK5 (0x1Fu << 20)

/* Directions: the first two of each face go towards higher squares, the last two lower. */
static const int ROOK_STEPS[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
static const int BISHOP_STEPS[4][2] = {{1, 1}, {-1, 1}, {1, -1}, {-1, -1}};
static uint32_t RAY[2][4][AREA]; /* [face][direction][square]: squares to the edge */

typedef struct {
  uint32_t white, black, bishops;
  int side; /* 0 White, 1 Black */
} Position;

static void build_rays(void) {
  for (int face = 0; face < 2; face++)
    for (int d = 0; d < 4; d++)
      for (int sq = 0; sq < AREA; sq++) {
        const int *step = face ? BISHOP_STEPS[d] : ROOK_STEPS[d];
        int file = sq % SIZE + step[0], rank = sq / SIZE + step[1];
        uint32_t ray = 0;
        while (file >= 0 && file < SIZE && rank >= 0 && rank < SIZE) {
          ray |= 1u << (rank * SIZE + file);
          file += step[0];
          rank += step[1];
        }
        RAY[face][d][sq] = ray;
      }
}

/* Squares a piece on sq showing face attacks: empty squares up to and including the first
   occupied one along each ray (used to fill the tables below). */
static uint32_t ray_attacks(int face, int sq, uint32_t occupied) {
  uint32_t all = 0;
  for (int d = 0; d < 2; d++) {
    uint32_t ray = RAY[face][d][sq], blockers = ray & occupied;
    all |= blockers ? ray ^ RAY[face][d][__builtin_ctz(blockers)] : ray;
  }
  for (int d = 2; d < 4; d++) {
    uint32_t ray = RAY[face][d][sq], blockers = ray & occupied;
    all |= blockers ? ray ^ RAY[face][d][31 - __builtin_clz(blockers)] : ray;
  }
  return all;
}

/* The same attacks by one lookup: only the occupancy of the ray squares short of the edge
   matters (at most 6 of them), and a multiplier found at start-up maps each such occupancy
   to its own slot of a 64-entry table, or to one holding the same attacks. */
typedef struct {
  uint32_t mask;
  int shift;
  uint64_t magic;
  uint32_t table[64];
} Lookup;
static Lookup LOOKUP[2][AREA];

static uint64_t search_state = 0x2545F4914F6CDD1Dull;
static uint64_t search_random(void) {
  search_state ^= search_state >> 12;
  search_state ^= search_state << 25;
  search_state ^= search_state >> 27;
  return search_state * 0x2545F4914F6CDD1Dull;
}

static void build_lookups(void) {
  for (int face = 0; face < 2; face++)
    for (int sq = 0; sq < AREA; sq++) {
      Lookup *l = &LOOKUP[face][sq];
      l->mask = 0;
      for (int d = 0; d < 4; d++)
        for (uint32_t ray = RAY[face][d][sq]; ray; ray &= ray - 1) {
          int s = __builtin_ctz(ray);
          if (RAY[face][d][s]) l->mask |= 1u << s; /* not the last square before the edge */
        }
      int bits = __builtin_popcount(l->mask);
      l->shift = 64 - (bits ? bits : 1);
      for (;;) {
        uint32_t filled[64] = {0};
        int good = 1;
        l->magic = search_random() & search_random() & search_random();
        uint32_t subset = 0;
        do { /* every subset of the mask, by the carry-rippler */
          uint32_t attack = ray_attacks(face, sq, subset);
          int slot = (int)(((uint64_t)subset * l->magic) >> l->shift);
          if (filled[slot] && l->table[slot] != attack) good = 0;
          filled[slot] = 1;
          l->table[slot] = attack;
          subset = (subset - l->mask) & l->mask;
        } while (subset && good);
        if (good) break;
      }
    }
}

static inline uint32_t attacks(int face, int sq, uint32_t occupied) {
  const Lookup *l = &LOOKUP[face][sq];
  return l->table[((uint64_t)(occupied & l->mask) * l->magic) >> l->shift];
}

/* The target squares of the piece on sq: empty squares, or a capturable enemy piece; in
   check only the goal. */
static inline uint32_t targets(const Position *p, int sq) {
  uint32_t mine = p->side ? p->black : p->white, enemy = p->side ? p->white : p->black;
  uint32_t occupied = mine | enemy;
  uint32_t reach = attacks((p->bishops >> sq) & 1, sq, occupied);
  uint32_t goal = 1u << (p->side ? BLACK_GOAL : WHITE_GOAL);
  if (enemy & goal) return reach & goal;
  return (reach & ~occupied) | (reach & enemy & GOALS);
}

/* Legal moves as flipgames action ids (from * 25 + to); returns how many. */
static int generate(const Position *p, int *moves) {
  int n = 0;
  for (uint32_t mine = p->side ? p->black : p->white; mine; mine &= mine - 1) {
    int from = __builtin_ctz(mine);
    for (uint32_t to = targets(p, from); to; to &= to - 1)
      moves[n++] = from * AREA + __builtin_ctz(to);
  }
  return n;
}

/* xorshift64* seeded through splitmix64, and a draw in [0, n) by multiply-shift. */
static uint64_t rng_state;

static void seed_rng(uint64_t seed) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  rng_state = z ? z : 1;
}

static inline int below(int n) {
  uint64_t x = rng_state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  rng_state = x;
  uint64_t high = (x * 0x2545F4914F6CDD1Dull) >> 32;
  return (int)((high * (uint64_t)n) >> 32);
}

/* A uniformly random legal move (its action id), found without listing the moves: count
   each piece's targets, draw an index, walk to it. Sets *n to the number of legal moves;
   returns -1 when there is none. */
static inline int random_move(const Position *p, int *n) {
  uint32_t to[5], mine = p->side ? p->black : p->white;
  int from[5], pieces = 0, total = 0;
  for (; mine; mine &= mine - 1) {
    from[pieces] = __builtin_ctz(mine);
    to[pieces] = targets(p, from[pieces]);
    total += __builtin_popcount(to[pieces]);
    pieces++;
  }
  *n = total;
  if (!total) return -1;
  int index = below(total);
  for (int i = 0;; i++) {
    int here = __builtin_popcount(to[i]);
    if (index < here) {
      uint32_t bits = to[i];
      while (index--) bits &= bits - 1;
      return from[i] * AREA + __builtin_ctz(bits);
    }
    index -= here;
  }
}

static inline int count_moves(const Position *p) {
  int n = 0;
  for (uint32_t mine = p->side ? p->black : p->white; mine; mine &= mine - 1)
    n += __builtin_popcount(targets(p, __builtin_ctz(mine)));
  return n;
}

/* Play action; returns 1 when it captured. The moved piece shows its other face; a captured
   piece's face leaves with it. */
static inline int play(Position *p, int action) {
  uint32_t from = 1u << (action / AREA), to = 1u << (action % AREA), moved = from | to;
  uint32_t *mine = p->side ? &p->black : &p->white, *enemy = p->side ? &p->white : &p->black;
  int captured = (*enemy & to) != 0;
  *mine ^= moved;
  *enemy &= ~to;
  p->bishops = (p->bishops & ~moved) | ((p->bishops & from) ? 0 : to);
  p->side ^= 1;
  return captured;
}

static void start(Position *p) {
  p->white = RANK1;
  p->black = RANK5;
  p->bishops = 0;
  p->side = 0;
}

static uint64_t perft(const Position *p, int depth) {
  if (depth == 1) return (uint64_t)count_moves(p);
  int moves[MAX_MOVES];
  int n = generate(p, moves);
  uint64_t total = 0;
  for (int i = 0; i < n; i++) {
    Position child = *p;
    play(&child, moves[i]);
    total += perft(&child, depth - 1);
  }
  return total;
}

/* Positions since the last capture, for the repetition rule: the side to move alternates,
   so only every second entry can match; a 1024-bit filter of their hashes skips the scan
   when the new position cannot have occurred. */
typedef struct {
  uint32_t white[CAP + 1], black[CAP + 1], bishops[CAP + 1];
  int length;
  uint64_t seen[16];
} History;

static inline void forget(History *h) {
  h->length = 0;
  memset(h->seen, 0, sizeof h->seen);
}

/* Record p; returns how many times it has occurred since the last capture, itself included. */
static inline int occurrences(History *h, const Position *p) {
  int count = 1;
  uint64_t hash = p->white * 0x9E3779B97F4A7C15ull ^ p->black * 0xC2B2AE3D27D4EB4Full ^
                  p->bishops * 0x165667B19E3779F9ull;
  uint64_t *word = &h->seen[hash >> 60], bit = 1ull << ((hash >> 54) & 63);
  if (*word & bit)
    for (int i = h->length - 2; i >= 0; i -= 2)
      count += h->white[i] == p->white && h->black[i] == p->black && h->bishops[i] == p->bishops;
  *word |= bit;
  h->white[h->length] = p->white;
  h->black[h->length] = p->black;
  h->bishops[h->length] = p->bishops;
  h->length++;
  return count;
}

/* One random game, or the game of the given actions while they last (an illegal one stops
   it with result 'X'); returns its plies and sets *result ('W', 'B', 'D' or 'C'). When out
   is not NULL the game is printed there in the games format. */
static int playout(History *h, char *result, FILE *out, const int *given, int given_count) {
  Position p;
  start(&p);
  forget(h);
  int count = occurrences(h, &p), ply = 0, n;
  char line[CAP * 12 + 64];
  int used = 0;
  line[0] = 0;
  for (;;) {
    if (count >= 3) { /* the third occurrence draws, before anything else */
      n = 0;
      *result = 'D';
      break;
    }
    if (ply >= CAP) { /* a finished position still counts as finished */
      n = count_moves(&p);
      *result = n ? 'C' : p.side ? 'W' : 'B';
      break;
    }
    int action;
    if (ply < given_count) {
      int moves[MAX_MOVES], found = 0;
      n = generate(&p, moves);
      for (int i = 0; i < n; i++) found |= moves[i] == given[ply];
      action = n ? given[ply] : -1;
      if (n && !found) {
        *result = 'X';
        break;
      }
    } else {
      action = random_move(&p, &n);
    }
    if (action < 0) { /* no legal move: the side to move loses */
      *result = p.side ? 'W' : 'B';
      break;
    }
    if (out) used += sprintf(line + used, " %d:%d", n, action);
    if (play(&p, action)) forget(h);
    ply++;
    count = occurrences(h, &p);
  }
  if (out) fprintf(out, "%c %d%s %d:-\n", *result, ply, line, n);
  return ply;
}

static double cpu_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int usage(const char *name) {
  fprintf(stderr,
          "usage: %s perft DEPTH | perftonly DEPTH | run SECONDS SEED | games COUNT SEED | "
          "line ACTION...\n",
          name);
  return 2;
}

int main(int argc, char **argv) {
  if (argc < 3) return usage(argv[0]);
  build_rays();
  build_lookups();
  Position p;
  start(&p);
  static History history;
  if (!strcmp(argv[1], "perft") || !strcmp(argv[1], "perftonly")) {
    int depth = atoi(argv[2]);
    if (depth < 1) return usage(argv[0]);
    if (argv[1][5] == 'o') {
      double began = cpu_seconds();
      uint64_t leaves = perft(&p, depth);
      printf("perft(%d) = %llu cpu=%.6f\n", depth, (unsigned long long)leaves,
             cpu_seconds() - began);
    } else {
      for (int d = 1; d <= depth; d++)
        printf("perft(%d) = %llu\n", d, (unsigned long long)perft(&p, d));
    }
    return 0;
  }
  char result;
  if (!strcmp(argv[1], "line")) {
    static int given[CAP];
    int count = 0;
    for (int i = 2; i < argc && count < CAP; i++) given[count++] = atoi(argv[i]);
    seed_rng(0);
    playout(&history, &result, stdout, given, count);
    return result == 'X';
  }
  if (argc < 4) return usage(argv[0]);
  seed_rng(strtoull(argv[3], NULL, 10));
  if (!strcmp(argv[1], "games")) {
    long count = atol(argv[2]);
    for (long g = 0; g < count; g++) playout(&history, &result, stdout, NULL, 0);
    return 0;
  }
  if (strcmp(argv[1], "run")) return usage(argv[0]);
  double seconds = atof(argv[2]), began = cpu_seconds(), spent;
  long long games = 0, plies = 0, capped = 0, wins[2] = {0, 0};
  do {
    for (int i = 0; i < 1024; i++) {
      plies += playout(&history, &result, NULL, NULL, 0);
      capped += result == 'C';
      wins[0] += result == 'W';
      wins[1] += result == 'B';
    }
    games += 1024;
    spent = cpu_seconds() - began;
  } while (spent < seconds);
  printf("cpu=%.3f playouts=%lld playouts/s=%.1f plies/s=%.1f mean_plies=%.2f capped=%lld "
         "white=%lld black=%lld\n",
         spent, games, games / spent, plies / spent, (double)plies / games, capped, wins[0],
         wins[1]);
  return 0;
}
