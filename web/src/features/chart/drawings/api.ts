import { type CreateDrawingRequest, type Drawing, type DrawingPoint, chartingOperations as ops } from '@pipdesk/contract';
import { type QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { api, errorMessage } from '../../../api';

/**
 * Query keys of the drawings. A student's sit under ['academy'] with the rest of the instructor's
 * reads of that student, and go with them on sign-out.
 */
export const drawingKeys = {
  own: (symbol: string) => ['drawings', symbol.toUpperCase()] as const,
  student: (studentId: number, symbol: string) => ['academy', 'student', studentId, 'drawings', symbol.toUpperCase()] as const,
};

export const DRAWINGS_LOAD_FAILED = 'Failed to load the drawings';
export const DRAWING_SAVE_FAILED = 'Failed to save the drawing';
export const DRAWING_MOVE_FAILED = 'Failed to move the drawing';
export const DRAWING_DELETE_FAILED = 'Failed to delete the drawing';

/**
 * The drawings on a pair's chart, oldest first: the trader's own (GET trading/drawings/), or a
 * student's, read-only, when `studentId` is given (GET academy/students/{id}/drawings/).
 */
export function useDrawings(symbol: string | null, studentId?: number) {
  return useQuery({
    queryKey: studentId === undefined ? drawingKeys.own(symbol ?? '') : drawingKeys.student(studentId, symbol ?? ''),
    queryFn: ({ signal }) => {
      const query = { symbol: (symbol ?? '').toUpperCase() };
      return studentId === undefined
        ? api.call(ops.listDrawings, { query }, { signal })
        : api.call(ops.studentDrawings, { ids: { id: studentId }, query }, { signal });
    },
    enabled: symbol !== null && symbol !== '',
  });
}

type Cache = Drawing[] | undefined;

function replaceDrawing(queryClient: QueryClient, key: readonly unknown[], id: number, change: (d: Drawing) => Drawing) {
  queryClient.setQueryData<Drawing[]>(key, (list) => list?.map((d) => (d.id === id ? change(d) : d)));
}

/**
 * Creating, moving and deleting the trader's drawings on `symbol`. A move and a delete show at
 * once and are put back if the server refuses (with its message); a new drawing shows when the
 * server has given it an id. The last failure's text is kept for the layer to show (a 409
 * LIMIT_REACHED reads the server's own words).
 */
export function useDrawingEdits(symbol: string) {
  const queryClient = useQueryClient();
  const key = drawingKeys.own(symbol);
  const [error, setError] = useState<string | null>(null);
  // A drawing nudged several times sends several PATCHes: only the newest answer may set its points.
  const latestMove = useRef(new Map<number, number>());

  const create = useMutation({
    mutationFn: (body: CreateDrawingRequest) => api.call(ops.createDrawing, { body }),
    onMutate: () => setError(null),
    onSuccess: (drawing) => {
      queryClient.setQueryData<Drawing[]>(key, (list) =>
        list?.some((d) => d.id === drawing.id) ? list : [...(list ?? []), drawing],
      );
    },
    onError: (err) => setError(errorMessage(err, DRAWING_SAVE_FAILED)),
  });

  const move = useMutation({
    mutationFn: ({ id, points }: { id: number; points: DrawingPoint[]; seq: number }) =>
      api.call(ops.updateDrawing, { ids: { id }, body: { points } }),
    onMutate: async ({ id, points }) => {
      setError(null);
      await queryClient.cancelQueries({ queryKey: key });
      const before = queryClient.getQueryData<Drawing[]>(key)?.find((d) => d.id === id);
      replaceDrawing(queryClient, key, id, (d) => ({ ...d, points }));
      return { before };
    },
    onSuccess: (drawing, { id, seq }) => {
      if (latestMove.current.get(id) === seq) replaceDrawing(queryClient, key, id, () => drawing);
    },
    onError: (err, { id, seq }, context) => {
      setError(errorMessage(err, DRAWING_MOVE_FAILED));
      const before = context?.before;
      if (before && latestMove.current.get(id) === seq) replaceDrawing(queryClient, key, id, () => before);
    },
  });

  const remove = useMutation({
    mutationFn: (id: number) => api.call(ops.deleteDrawing, { ids: { id } }),
    onMutate: async (id) => {
      setError(null);
      await queryClient.cancelQueries({ queryKey: key });
      const list: Cache = queryClient.getQueryData<Drawing[]>(key);
      const index = list?.findIndex((d) => d.id === id) ?? -1;
      const before = index >= 0 ? list?.[index] : undefined;
      queryClient.setQueryData<Drawing[]>(key, (l) => l?.filter((d) => d.id !== id));
      return { before, index };
    },
    onError: (err, _id, context) => {
      setError(errorMessage(err, DRAWING_DELETE_FAILED));
      const before = context?.before;
      if (!before) return;
      queryClient.setQueryData<Drawing[]>(key, (l) => {
        const next = [...(l ?? [])];
        next.splice(Math.min(context.index, next.length), 0, before);
        return next;
      });
    },
  });

  return {
    error,
    dismissError: () => setError(null),
    creating: create.isPending,
    create: (body: CreateDrawingRequest) => create.mutate(body),
    move: (id: number, points: DrawingPoint[]) => {
      const seq = (latestMove.current.get(id) ?? 0) + 1;
      latestMove.current.set(id, seq);
      move.mutate({ id, points, seq });
    },
    remove: (id: number) => remove.mutate(id),
  };
}
