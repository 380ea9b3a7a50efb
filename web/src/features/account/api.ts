import { type AcademyMeDto, authOperations, type ChangePasswordRequest, type ChangePasswordResponse } from '@pipdesk/contract';
import { useQueryClient } from '@tanstack/react-query';
import { api } from '../../api';
import { useSession } from '../../auth/SessionProvider';
import { academyKeys, useAcademyMe } from '../academy/me';

/** POST auth/change-password/: ends the caller's other sessions; this one goes on. */
export function changePassword(body: ChangePasswordRequest): Promise<ChangePasswordResponse> {
  return api.call(authOperations.changePassword, { body });
}

/**
 * Whether the signed-in user must change a temporary password before anything else: the login
 * answer says so at once; after a reload, academy/me does (docs/screens.md#change-password).
 */
export function useMustChangePassword(): boolean {
  const { state } = useSession();
  const me = useAcademyMe();
  if (state.status !== 'signed-in') return false;
  if (state.mustChangePassword) return true;
  return me.data === 'must-change-password' || (typeof me.data === 'object' && me.data.must_change_password);
}

/** After a change: the session and the cached academy/me forget the temporary password. */
export function usePasswordChanged(): () => void {
  const { passwordChanged } = useSession();
  const queryClient = useQueryClient();
  return () => {
    passwordChanged();
    const me = queryClient.getQueryData<AcademyMeDto | 'must-change-password'>(academyKeys.me);
    // Lifted at once, then asked again; a stale flag must not hold the screen meanwhile.
    if (typeof me === 'object') {
      queryClient.setQueryData(academyKeys.me, { ...me, must_change_password: false });
      void queryClient.invalidateQueries({ queryKey: academyKeys.me });
    } else void queryClient.resetQueries({ queryKey: academyKeys.me });
  };
}
