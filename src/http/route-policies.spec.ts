import { Controller, Get, INestApplication, Post } from '@nestjs/common';
import { Public } from './auth/public.decorator';
import { RateLimit } from './rate-limit/rate-limit.decorator';
import { applyRoutePolicies, routeRateLimits } from './route-policies';

/** Just enough of an app for the policies: its modules' controllers. */
function appWith(...controllers: Function[]): INestApplication {
  const module = {
    controllers: new Map(controllers.map((c) => [c, { metatype: c }])),
  };
  return {
    get: () => new Map([['module', module]]),
  } as unknown as INestApplication;
}

@Controller('v1/things')
class AuthenticatedController {
  @Get(':id')
  one() {}
}

@Controller('open')
@Public()
class UndeclaredController {
  @Get('page')
  @RateLimit('page')
  page() {}

  @Post('form')
  form() {}
}

@Controller()
@Public()
@RateLimit('page')
class DeclaredController {
  @Get('pages/:id')
  page() {}

  @Post('pages/:id/buy')
  @RateLimit('purchase')
  buy() {}

  @Get('ping')
  @RateLimit('none')
  ping() {}
}

describe('route policies', () => {
  it('refuses to start with a public route that declares no rate-limit policy, naming it', () => {
    expect(() =>
      applyRoutePolicies(
        appWith(AuthenticatedController, UndeclaredController),
      ),
    ).toThrow(
      "Public routes without a rate-limit policy (add @RateLimit(...), 'none' included): POST /open/form",
    );
  });

  it('starts when every public route declares one; authenticated routes default to the API key', () => {
    const app = appWith(AuthenticatedController, DeclaredController);
    expect(() => applyRoutePolicies(app)).not.toThrow();
    expect(routeRateLimits(app)).toEqual([
      {
        method: 'GET',
        path: '/v1/things/:id',
        isPublic: false,
        policy: undefined,
      },
      { method: 'GET', path: '/pages/:id', isPublic: true, policy: 'page' },
      {
        method: 'POST',
        path: '/pages/:id/buy',
        isPublic: true,
        policy: 'purchase',
      },
      { method: 'GET', path: '/ping', isPublic: true, policy: 'none' },
    ]);
  });
});
